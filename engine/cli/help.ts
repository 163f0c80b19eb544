import pkg from '../../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

export const HELP = `countersign ${VERSION} — declarative JSON/YAML workflows for AI agents

usage: countersign <command> [options]

  validate <files...> [--json]              check workflow files (.json/.yaml) and personas (.md) (exit 0 valid, 1 invalid)
  start <file> [--input JSON|@file]         start a run; prints the first pending directive
  step <runId> --response JSON|@file|-      answer the pending item [--seq N] [--as ID]
  status <runId>                            the run's state
  runs                                      every run, newest first
  trace <runId>                             the run's journal
  graph <file> [--format mermaid|dot]       draw the workflow [--json]
  run <file> --agent <adapter>              drive a run to the end with an agent:
                                            scripted:<file> | jsonl:<cmd> | exec:<cmd> | interactive
                                            [--reviewer <adapter>] for workflows with delegate-review nodes
  mcp                                       serve the engine over MCP on stdio (Claude Code, Cursor, VS Code)
  gate --tool T --class C --proposal JSON   run one proposal through the review gate workflow [--reviewer <adapter>|reply:<file>]
  audit [--status S] [--since ISO]          the review gate's ledger: proposal and execution rows
  confirm --operator U --action T --target JSON   record a user's confirmation (for force_approve_no_sop)
  pr-status --comments FILE|- [--json]      review and docs status from PR comment bodies (ADR-019)

common options:
  --json          exactly one JSON document on stdout; progress and logs on stderr (every command but
                  mcp, whose stdout is the MCP protocol)
  --store DIR     the run store for start, step, status, runs, trace, run, mcp, gate, audit and confirm
                  (default ./.countersign, or $COUNTERSIGN_STORE)

countersign help <command> shows a command's options.
`;
