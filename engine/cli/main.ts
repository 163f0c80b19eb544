/**
 * `countersign` command dispatch. Each command is one file in commands/;
 * it returns its exit status and never calls process.exit, so the CLI is
 * testable in process.
 */
import { storeArg } from './render.js';
import { guardEarlyExit, resetNotes, runCreated } from './early-exit.js';
import { guardSignals } from './interrupted.js';
import { launcherWatches } from './relayed-signals.js';
import { outputFailureSaid, takeStdoutFailure, type CommandDone } from './stdout-failure.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { printJson, processIo, processStreams, reportError, usage, type Io } from './io.js';
import { COMMANDS, type Command } from './commands/index.js';
import { HELP, VERSION } from './help.js';
import { suggest } from '../format/suggest.js';

/** The options that may come before the command (commandFirst moves them after it), and --help/--version. */
const GLOBAL_OPTIONS = ['--json', '--store', '--help', '--version'];

/** The commands whose arguments are workflow files. */
const FILE_COMMANDS = new Set(['validate', 'start', 'graph', 'run']);

/**
 * Commands that stop cleanly on a signal themselves (gate's chain, mcp's own handler). `run` does so only once it
 * drives (signals.ts): until then (reading --input -, say) it is guarded as the short commands are, and hands over.
 */
const OWN_SIGNALS: ReadonlySet<string> = new Set(['gate', 'mcp']);

// The launcher hands the bundle its importer for tool modules (tools/module-import.ts).
export { useModuleImporter } from '../tools/module-import.js';

export async function main(argv: string[], given?: Io): Promise<number> {
  takeStdoutFailure();
  // Nothing an earlier command in this process noted (a run it created) is taken for this one's.
  resetNotes();
  const done: CommandDone = { store: '' };
  const status = await command(argv, given, done);
  // A stream reports a failed write on a later tick: waited for, so it is said here, not lost when the process ends.
  await new Promise((done) => setImmediate(done));
  // The result could not be written (stdout on a full disk): said, with what the command did, never a stack trace.
  const failed = takeStdoutFailure();
  if (failed) {
    try {
      const created = runCreated();
      (given?.stderr ?? process.stderr).write(outputFailureSaid(failed, status, created !== undefined ? { ...done, created } : done));
    } catch {
      // stderr fails too: the status still says how the command ended
    }
  }
  return status;
}

/** `done` is told what the command was (its name, store, run) as it is parsed: E_OUTPUT's fix names them. */
async function command(argv: string[], given: Io | undefined, done: CommandDone): Promise<number> {
  const json = argv.includes('--json');
  let io: Io;
  try {
    io = given ?? processIo();
  } catch (e) {
    // No Io without a current directory: said on the process's own streams, as any refusal is.
    reportError(processStreams(), e, json);
    return 2;
  }
  const { args: ordered, leading } = commandFirst(argv);
  const [name, ...restAll] = ordered;
  // Under --json, help and the version are one JSON document too.
  const say = (field: 'usage' | 'version', text: string) => (json ? printJson(io, { [field]: text }) : io.stdout.write(text.endsWith('\n') ? text : `${text}\n`));
  if (name === undefined) {
    io.stderr.write(HELP);
    reportError(io, usage('no command given', `name one: ${Object.keys(COMMANDS).join(', ')}`), json);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    // The first argument that names a command; an option's value (--store's) is not a topic.
    const args = restAll.filter((a, i) => a !== '--store' && restAll[i - 1] !== '--store' && !a.startsWith('-'));
    const topic = name === 'help' ? args.find((a) => Object.prototype.hasOwnProperty.call(COMMANDS, a)) : undefined;
    const known = topic !== undefined && Object.prototype.hasOwnProperty.call(COMMANDS, topic);
    // `help frobnicate`: a topic that is no command is said to be one, as `countersign frobnicate` is.
    if (name === 'help' && !known && args.length > 0) {
      reportError(io, usage(`no help topic "${args[0]}"`, `topics: ${Object.keys(COMMANDS).join(', ')}`), json);
      return 2;
    }
    const loaded = known ? await loadCommand(topic, io, json) : undefined;
    if (loaded === null) return 2;
    say('usage', loaded ? loaded.usage : HELP);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    say('version', VERSION);
    return 0;
  }
  if (name.startsWith('-')) {
    // `countersign --store` (or `--store --json`): the option, not the command, is what is missing.
    const storeAt = argv.indexOf('--store');
    if (storeAt >= 0 && (storeAt === argv.length - 1 || argv[storeAt + 1].startsWith('-'))) {
      reportError(io, usage('--store needs a directory', 'countersign <command> --store DIR (or set COUNTERSIGN_STORE)'), json);
      return 2;
    }
    // An option before the command that is no global one (`--frob status x`, `--jsno runs`): that option is what is wrong.
    const given = ordered.find((a) => !a.startsWith('-') && knownCommand(a));
    // `countersign --store runs`: the command was taken as --store's directory, and none is left.
    if (given !== undefined && storeAt >= 0 && argv[storeAt + 1] === given) {
      reportError(io, usage(`--store took "${given}" as its directory, and no command is left`, `give --store its directory: countersign --store DIR ${given} (or countersign ${given} --store DIR)`), json);
      return 2;
    }
    if (given !== undefined) {
      const guess = suggest(name.replace(/=.*$/s, ''), GLOBAL_OPTIONS);
      reportError(io, usage(`unknown option ${JSON.stringify(name)} before the command${guess ? ` — did you mean ${guess}?` : ''}`, `only ${GLOBAL_OPTIONS.join(', ')} may come before the command; give the command's own options after it: countersign ${given} --help`), json);
      return 2;
    }
    reportError(io, usage('no command given', `name one: ${Object.keys(COMMANDS).join(', ')}`), json);
    return 2;
  }
  const command = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? await loadCommand(name, io, json) : undefined;
  if (command === null) return 2;
  if (!command) {
    const guess = suggest(name, Object.keys(COMMANDS));
    reportError(io, usage(`unknown command "${name}"${guess ? ` — did you mean ${guess}?` : ''}`, `commands: ${Object.keys(COMMANDS).join(', ')}`), json);
    return 2;
  }
  // A --store given before the command is a global option: a command that keeps no runs (validate, graph) ignores it.
  const rest = command.options && Object.hasOwn(command.options, 'store') ? restAll : restAll.filter((_, i) => !leading.has(i));
  if (rest.includes('--help') || rest.includes('-h')) {
    say('usage', command.usage);
    return 0;
  }
  // `--seq -1` is a seq (one never issued: E_SEQ, as `--seq=-1` is), not an option: a negative number names none.
  const args = rest.flatMap((a, i) => (a === '--seq' && /^-\d+$/.test(rest[i + 1] ?? '') ? [`--seq=${rest[i + 1]}`] : rest[i - 1] === '--seq' && /^-\d+$/.test(a) ? [] : [a]));
  let parsed;
  try {
    parsed = parseArgs({ args, options: command.options as ParseArgsConfig['options'], allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    // Node's parser adds lines of its own advice; the error is one line, the advice our fix.
    const message = (e as Error).message;
    const dashValue = /^Option '(--[\w-]+)' argument is ambiguous/.exec(message);
    if (dashValue) {
      // A seq is never negative: no spelling of "-1" is worth suggesting for it.
      const fix = dashValue[1] === '--seq'
        ? 'a seq is a whole number from 1: pass the seq of a pending state, or leave --seq out'
        : `if the value really starts with "-", write it as ${dashValue[1]}=<value>; otherwise check the value`;
      reportError(io, usage(`${dashValue[1]} got a value starting with "-"`, `${fix}; usage: ${command.usage.split('\n')[0]}`), json);
      return 2;
    }
    // An option the command does not take: said in our words, with the one meant when it is close (`--jsno`: --json).
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    if (unknown) {
      const options = ['--help', ...Object.keys(command.options ?? {}).map((o) => `--${o}`)];
      const guess = unknown[1].startsWith('--') ? suggest(unknown[1], options) : undefined;
      reportError(io, usage(`unknown option ${JSON.stringify(unknown[1])} for ${name}${guess ? ` — did you mean ${guess}?` : ''}`, `${guess ? `write ${guess}; ` : ''}usage: ${command.usage.split('\n')[0]}`), json);
      return 2;
    }
    reportError(io, usage(message.replace(/\. To specify.*$/s, '').split('\n')[0], `usage: ${command.usage.split('\n')[0]}`), json);
    return 2;
  }
  const twice = conflictingRepeat(parsed.tokens ?? [], command.options ?? {});
  if (twice) {
    reportError(io, usage(`${twice.option} is given twice, as ${twice.values.map((v) => JSON.stringify(v)).join(' and ')}: it takes one value`, `say it once; usage: ${command.usage.split('\n')[0]}`), json);
    return 2;
  }
  // An empty file name is what an unset shell variable gives (`start "$WF"`): refused, never resolved to the working directory.
  if (FILE_COMMANDS.has(name) && parsed.positionals.some((p) => p.trim() === '')) {
    reportError(io, usage(`${name} was given an empty workflow file name`, `name the workflow file (is the shell variable you passed unset?); usage: ${command.usage.split('\n')[0]}`), json);
    return 2;
  }
  // An empty flag is what an unset shell variable gives (`--store "$DIR"`): refused, never taken as "the default".
  const storeFlag = (parsed.values as Record<string, unknown>).store;
  if (typeof storeFlag === 'string' && storeFlag.trim() === '') {
    reportError(io, usage('--store needs a directory, and was given an empty value', 'name the store directory (is the shell variable you passed unset?), or leave --store out to use $COUNTERSIGN_STORE or ./.countersign'), json);
    return 2;
  }
  // A tool module may end the process itself: said, never a silent exit (early-exit.ts).
  const values = parsed.values as Record<string, unknown>;
  // How to find a run left where a module ended the process: the commands as this one was run (its store, its modules).
  const store = storeArg(typeof values.store === 'string' ? values.store : undefined);
  // The run, when the command names it (step, status, trace, run --resume); else how to find it.
  const runId = typeof values.resume === 'string' ? values.resume : ['step', 'status', 'trace'].includes(name) ? parsed.positionals[0] : undefined;
  const files = name === 'validate' || name === 'graph' ? parsed.positionals : undefined;
  const context = { command: name, store, ...(runId !== undefined ? { runId } : {}), ...(files ? { files } : {}), ...(values['allow-tool-modules'] === true ? { toolModules: true } : {}) };
  Object.assign(done, context);
  const early = given === undefined && values['allow-tool-modules'] === true ? guardEarlyExit(io, json, context) : undefined;
  // A signal still ends the command, said first (interrupted.ts). With tool modules only under the launcher: their
  // code may hold the event loop, and the launcher then ends the command and says so (stdout-relay.cjs).
  const interrupted = given === undefined && (!early || launcherWatches()) && !OWN_SIGNALS.has(name) ? guardSignals(io, json, context) : undefined;
  let status = 2;
  try {
    status = await command.run(parsed.values as Record<string, string | boolean | string[] | undefined>, parsed.positionals, io);
    return status;
  } catch (e) {
    const store = values.store;
    reportError(io, e, json, typeof store === 'string' ? store : undefined);
    return 2;
  } finally {
    interrupted?.finished();
    early?.finished(status);
  }
}

/**
 * A one-value option given twice with different values (`--seq 1 --seq 2`,
 * a --store before the command and another after it): the parser would keep
 * the last without a word, so which one the user meant is asked instead.
 */
function conflictingRepeat(tokens: ReadonlyArray<{ kind: string; name?: string; rawName?: string; value?: string }>, options: Record<string, { type?: string; multiple?: boolean }>): { option: string; values: string[] } | undefined {
  const seen = new Map<string, string>();
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name === undefined || t.value === undefined) continue;
    const spec = options[t.name];
    if (!spec || spec.type !== 'string' || spec.multiple) continue;
    const before = seen.get(t.name);
    if (before !== undefined && before !== t.value) return { option: `--${t.name}`, values: [before, t.value] };
    seen.set(t.name, t.value);
  }
  return undefined;
}

/** A command's module; null (reported) when it does not load, which is a countersign bug, not a crash. */
async function loadCommand(name: string, io: Io, json: boolean): Promise<Command | null> {
  try {
    return (await COMMANDS[name]()).command;
  } catch (e) {
    reportError(io, e, json);
    return null;
  }
}

/** Whether `name` is a command (the launcher keeps a code cache per command). */
export function knownCommand(name: string | undefined): boolean {
  return name !== undefined && Object.prototype.hasOwnProperty.call(COMMANDS, name);
}

/**
 * Global options may come before the command (`countersign --json status
 * X`): move the command name to the front, keeping every other argument.
 */
function commandFirst(argv: string[]): { args: string[]; leading: Set<number> } {
  let i = 0;
  const leading = new Set<number>();
  while (i < argv.length) {
    const a = argv[i];
    if (a === '--json') i++;
    else if (a.startsWith('--store=')) leading.add(i++);
    else if (a === '--store') {
      leading.add(i).add(i + 1);
      i += 2;
    } else break;
  }
  if (i === 0 || i >= argv.length) return { args: argv, leading: new Set() };
  // The store arguments' places among the arguments after the command name (which keep their order).
  return { args: [argv[i], ...argv.slice(0, i), ...argv.slice(i + 1)], leading };
}
