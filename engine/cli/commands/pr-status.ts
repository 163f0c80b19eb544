import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CountersignError } from '../../errors.js';
import { offsetToPosition } from '../../format/offsets.js';
import { formatPrStatus, readPrStatus } from '../../tools/status-reader.js';
import { printJson, usage, type Io } from '../io.js';
import type { Command } from './command.js';
import { withoutBom } from '../../format/bom.js';
import { jsonErrorOffset, jsonParseReason } from '../../format/json-parse-message.js';

const SHAPE_FIX = 'write a JSON array of comment bodies, e.g. ["## Code Review Summary\\n\\n…\\n\\n### Verdict: APPROVE"]; from GitHub: gh pr view N --json comments --jq \'[.comments[].body]\' | countersign pr-status --comments -';

export const command: Command = {
  usage: [
    'countersign pr-status --comments FILE|- [--json]',
    '  reads PR comment bodies (a JSON array of strings, oldest first; - reads standard input) the way the',
    '  ADR-019 pipeline-status does: the review phase is DONE <verdict> when a comment has "## Code Review Summary"',
    '  followed by "### Verdict: APPROVE|REQUEST_CHANGES|NEEDS_DISCUSSION" (the latest such comment decides);',
    '  the docs phase is DONE when any comment mentions "Docs Review". Otherwise NOT_DONE.',
    '  --json prints {"review": {"status", "verdict"?}, "docs": {"status"}}.',
  ].join('\n'),
  options: { comments: { type: 'string' }, json: { type: 'boolean' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw usage(`pr-status takes no positional arguments (got ${positionals.join(' ')})`, `usage: ${command.usage.split('\n')[0]}`);
    const from = values.comments;
    if (typeof from !== 'string' || from === '') throw usage('pr-status needs --comments FILE (or - for standard input)', `usage: ${command.usage.split('\n')[0]}`);
    const status = readPrStatus(await readComments(from, io));
    if (values.json) printJson(io, status);
    else io.stdout.write(formatPrStatus(status));
    return 0;
  },
};

async function readComments(from: string, io: Io): Promise<string[]> {
  const file = from === '-' ? undefined : resolve(io.cwd, from);
  let text: string;
  if (file === undefined) {
    text = await readAll(io.stdin);
  } else {
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A file that cannot be read is E_FILE_NOT_FOUND, as for every command's files; the message and fix say what is there.
      if (code === 'EISDIR') {
        throw new CountersignError('E_FILE_NOT_FOUND', `the comments path ${file} is a directory, not a file`, { file, fix: 'give --comments a JSON file of comment bodies, or pass - and pipe them in' });
      }
      throw new CountersignError('E_FILE_NOT_FOUND', `cannot read the comments file ${file}: ${code ?? (e as Error).message}`, {
        file,
        fix: code === 'ENOENT' ? 'check the path given to --comments, or pass - and pipe the comments in' : 'make the file readable, or pass - and pipe the comments in',
      });
    }
  }
  text = withoutBom(text);
  const at = file === undefined ? {} : { file };
  // With a file, the error's location already names it (reportError prints it first).
  const where = file === undefined ? 'standard input' : 'the file';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const offset = await jsonErrorOffset(text, (e as Error).message);
    const pos = offset !== undefined ? offsetToPosition(text, offset) : undefined;
    throw new CountersignError('E_INPUT', `${where} is not valid JSON${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}: ${jsonParseReason((e as Error).message, pos !== undefined)}`, {
      ...at,
      ...(pos ?? {}),
      fix: SHAPE_FIX,
    });
  }
  if (!Array.isArray(parsed)) {
    throw new CountersignError('E_INPUT', `${where} holds ${describe(parsed)}, not a JSON array of comment bodies`, { ...at, pointer: '', fix: SHAPE_FIX });
  }
  parsed.forEach((body, i) => {
    if (typeof body !== 'string') {
      throw new CountersignError('E_INPUT', `${file === undefined ? 'standard input: ' : ''}item /${i} is ${describe(body)}, not a comment body (a string)`, { ...at, pointer: `/${i}`, fix: SHAPE_FIX });
    }
  });
  return parsed as string[];
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
