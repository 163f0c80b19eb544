/**
 * The `interactive` adapter: a person answers each pending item at a
 * prompt. It shows what an agent would receive (directive, completion
 * condition, previous errors, the schema) and reads a JSON answer that may
 * span several lines. A typo re-prompts: it is not the person's answer, so
 * it never costs an attempt.
 */
import { lostNumber, repeatedKeySaid } from '../format/json-source.js';
import { CountersignError } from '../errors.js';
import type { JsonValue } from '../format/model.js';
import type { AgentRequest } from '../run/contract.js';
import type { Agent, AnswerOptions } from './agent.js';
import { startAnswerWait, waitEndedError } from './agent-process.js';
import { LineReader } from './line-reader.js';
import { canEditLines, editTerminalLines, type TerminalLines } from './terminal-lines.js';
import { jsonParseReason } from '../format/json-parse-message.js';

export interface InteractiveIO {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

const ERROR_SHORTCUT = /^\s*\$error\s*:\s*(.*)$/;
/** Every line is typed after a two-column prompt (`> ` or `… `). */
const PROMPT_COLUMNS = 2;
/**
 * The most a terminal's own line editing (canonical mode, Linux) keeps of a
 * line: the bytes past it are dropped. Met only when this adapter cannot
 * edit lines itself (its output is not a terminal).
 */
const KERNEL_LINE_BYTES = 4095;

export function createInteractiveAgent(io: InteractiveIO = { input: process.stdin, output: process.stderr }): Agent {
  let reader: LineReader | undefined;
  let terminal: TerminalLines | undefined;
  const say = (text: string) => io.output.write(text);
  const atTerminal = (io.input as { isTTY?: boolean }).isTTY === true;
  // A terminal echoes what is typed, Enter included; piped input is not echoed,
  // so the line read is written after the prompt, and what follows starts on a line of its own.
  const echo = !atTerminal;
  // Lines the kernel edited (a terminal this adapter cannot edit lines on) are cut at its limit.
  const cutAt = atTerminal && !canEditLines(io.input, io.output) ? KERNEL_LINE_BYTES : undefined;

  async function answer(request: AgentRequest, options: AnswerOptions): Promise<JsonValue> {
    // At a terminal, lines are edited here, not by the kernel, which would cut them at 4095 bytes.
    if (!reader && canEditLines(io.input, io.output)) terminal = editTerminalLines(io.input, io.output, { startColumn: PROMPT_COLUMNS });
    // A person may paste too much: that line is dropped and they are asked again.
    reader ??= new LineReader(terminal?.lines ?? io.input, undefined, 'skip');
    const wait = startAnswerWait(options);
    try {
      say(renderPrompt(request));
      for (;;) {
        const ahead = () => reader!.hasUnread();
        const outcome = await readAnswer(reader, wait.signal, say, { echo, ahead, cutAt, wantLine: () => terminal?.wantLine() });
        if (outcome.kind === 'answer') return outcome.value;
        if (outcome.kind === 'retry') {
          say(`${outcome.problem}; type the answer again.\n> `);
          continue;
        }
        if (outcome.kind === 'eof') {
          // Whatever is said next starts on a line of its own, not after the prompt.
          say('\n');
          throw new CountersignError('E_AGENT_CRASHED', `input closed before an answer for node "${request.nodeId}" was given`, {
            nodeId: request.nodeId,
            fix: `the run is still waiting: resume it from a terminal with \`countersign run --resume ${request.runId} --agent interactive\`, or answer with \`countersign step ${request.runId} --seq ${request.seq} --response '{…}'\``,
          });
        }
        say('\n');
        throw waitEndedError(wait.reason ?? 'aborted', 'the person at the prompt', request.nodeId, options.timeoutMs);
      }
    } finally {
      wait.dispose();
    }
  }

  return {
    answer,
    callsTools: false,
    async close() {
      reader?.dispose();
      reader = undefined;
      // The terminal back in the mode it was found in.
      terminal?.dispose();
      terminal = undefined;
    },
  };
}

type Outcome =
  | { kind: 'answer'; value: JsonValue }
  | { kind: 'retry'; problem: string }
  | { kind: 'eof' }
  | { kind: 'stopped' };

interface ReadOptions {
  /** Write each line read after the prompt (input that is not echoed: a pipe). */
  echo: boolean;
  /** Whether the next line is already typed and echoed by the terminal: its continuation prompt would land inside it. */
  ahead: () => boolean;
  /** The byte length at which the terminal cut lines, when it edits them itself. */
  cutAt: number | undefined;
  /** Says a prompt now waits for a line: lines edited here are echoed only then, after the prompt that takes them. */
  wantLine: () => void;
}

/**
 * Collects lines until they parse as a JSON object. An empty line submits
 * what was typed so far; `$error: why` on the first line declares failure.
 * Text that can no longer become valid JSON is refused at once, so a typo
 * does not swallow the lines typed after it.
 */
async function readAnswer(reader: LineReader, signal: AbortSignal, say: (t: string) => void, { echo, ahead, cutAt, wantLine }: ReadOptions): Promise<Outcome> {
  let text = '';
  for (;;) {
    wantLine();
    const next = await reader.read(signal);
    if (echo && 'line' in next) say(`${next.line}\n`);
    if (!('line' in next)) {
      if (next.end === 'aborted') return { kind: 'stopped' };
      if (next.end === 'too-long') return { kind: 'retry', problem: `a line longer than ${next.limit} bytes was dropped (nothing typed before it is kept)` };
      // Input closed: what was typed is the answer if it is one; asking to type again would be asking nobody.
      if (next.end === 'eof' && text.trim() !== '') {
        const last = judge(text, true);
        return last.kind === 'answer' ? last : { kind: 'eof' };
      }
      return { kind: 'eof' };
    }
    // Typed in another encoding than UTF-8: asked again, never taken with U+FFFD in it.
    if (next.notUtf8) return { kind: 'retry', problem: 'that line is not UTF-8 text (is the terminal set to UTF-8?); nothing typed before it is kept' };
    const line = next.line;
    // Never judged as the person's JSON: what they typed past the limit never arrived.
    if (cutAt !== undefined && Buffer.byteLength(line) >= cutAt) {
      return { kind: 'retry', problem: `that line reached ${cutAt} bytes, the most the terminal keeps of one line: anything typed past that was cut off, so the line was dropped (nothing typed before it is kept); break the answer across lines (JSON may span lines), each shorter than that` };
    }
    if (text === '') {
      const shortcut = ERROR_SHORTCUT.exec(line);
      if (shortcut) return { kind: 'answer', value: { $error: shortcut[1].trim() || 'declared failure at the prompt' } };
      if (line.trim() === '') {
        say('> ');
        continue;
      }
    }
    if (line.trim() === '') return judge(text, true);
    text += `${line}\n`;
    const outcome = judge(text, false);
    if (outcome) return outcome;
    // Echoed here, or edited here (echoed once its prompt waits), a line always follows its prompt; echoed by the terminal as typed, a line already under way would have the prompt land inside it.
    if (echo || !ahead()) say('… ');
  }
}

/**
 * What `text` amounts to: an answer, a retry with the problem, or
 * undefined while more lines could still complete it (unless `final`).
 */
function judge(text: string, final: true): Outcome;
function judge(text: string, final: false): Outcome | undefined;
function judge(text: string, final: boolean): Outcome | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    if (!final && couldContinue(text, message)) return undefined;
    // One line, without the typed text V8 quotes back (the person has it on screen).
    return { kind: 'retry', problem: `that is not valid JSON (${jsonParseReason(message)})` };
  }
  // Never a number other than the one typed (as step refuses it): asked again.
  const lost = lostNumber(text);
  if (lost) return { kind: 'retry', problem: `${lost.said}; write such a number as a string ("…") if its digits matter` };
  // Nor the last of a repeated key's values.
  const repeated = repeatedKeySaid(text, value);
  if (repeated) return { kind: 'retry', problem: `the answer ${repeated.said}; write each key once` };
  // null is an answer, as in step: a node that takes no fields accepts {} or null.
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    return { kind: 'retry', problem: 'the answer must be a JSON object, e.g. {"field": "value"}' };
  }
  return { kind: 'answer', value: value as JsonValue };
}

/** True when the parse failed only because the text ends early. */
function couldContinue(text: string, message: string): boolean {
  // A string left open at the end of a line holds that line break, which no later line can make valid.
  if (/bad control character/i.test(message)) return false;
  if (/end of JSON input/i.test(message)) return true;
  const at = /at position (\d+)/.exec(message);
  return at !== null && Number(at[1]) >= text.trimEnd().length;
}

export function renderPrompt(request: AgentRequest): string {
  const lines = [
    '',
    `── node ${request.nodeId} · attempt ${request.attempt} of ${request.maxRetries + 1} · run ${request.runId} seq ${request.seq}`,
  ];
  if (request.kind === 'review' && request.contract === 'decision') {
    lines.push(`decision review · persona: ${request.persona.name} · model: ${request.persona.model}`);
    if (request.deadline) lines.push(`deadline: ${request.deadline}`);
    lines.push('', request.prompt, '', 'Answer {"reply": "<your final reply>"}; its first line decides: Decision: approve or Decision: reject.');
  } else if (request.kind === 'review') {
    lines.push(`review ${request.iteration} · role: ${request.reviewer}`);
    if (request.deadline) lines.push(`deadline: ${request.deadline}`);
    lines.push('', request.prompt, '', `Report file: ${request.report}`, 'Write every finding to the report file, then answer {"issues_count": N}.');
  } else {
    if (request.agent) lines.push(`role: ${request.agent}`);
    if (request.deadline) lines.push(`deadline: ${request.deadline}`);
    lines.push('', request.directive, '', `Done when: ${request.completionCondition}`);
  }
  if (request.errors && request.errors.length > 0) {
    lines.push('', 'The previous answer was rejected:', ...request.errors.map((e) => `  - ${e}`));
  }
  lines.push(
    '',
    'Answer schema:',
    JSON.stringify(request.inputSchema, null, 2),
    '',
    'Type a JSON object (it may span lines; an empty line submits), or `$error: <why>` to declare failure.',
    '> ',
  );
  return lines.join('\n');
}
