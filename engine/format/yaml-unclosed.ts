/**
 * An unclosed quoted string, `{` or `[` in YAML, found where it opens: the
 * parser reports the end of the text it swallowed (the next line, or the
 * end of the file), far from the fault. A quoted key left open is first
 * reported as a key spanning lines ("implicit keys need to be on a single
 * line"), whose usual fix, to quote the value, is the opposite of what is
 * needed; the closing-quote error comes after it, and is the one said.
 */
import { visit, type Document } from 'yaml';

/**
 * Where a quoted string the parser says is never closed opens, when it
 * opens at or before `first` (the first error's offset: every error in the
 * text it swallowed follows from it). Undefined when no quote is left open.
 */
export function unclosedQuoteOpening(doc: Document, first: number): number | undefined {
  for (const error of doc.errors) {
    if (error.code !== 'MISSING_CHAR' || !/closing .?quote/.test(error.message)) continue;
    const opened = unclosedQuoteAt(doc, error.pos[0]);
    if (opened !== undefined && opened <= first) return opened;
  }
  return undefined;
}

/** Where the quoted string that runs on to `end` (the parser's closing-quote error) opens. */
function unclosedQuoteAt(doc: Document, end: number): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Scalar(_key, node) {
      if ((node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') && node.range?.[1] === end) {
        found = node.range[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** Where a flow mapping or list that runs on to `end` without its closing bracket opens. */
export function unclosedFlowAt(doc: Document, end: number): number | undefined {
  let found: number | undefined;
  const check = (node: { flow?: boolean; range?: [number, number, number] | null }) => {
    if (node.flow && node.range && node.range[1] === end) {
      found = node.range[0];
      return visit.BREAK;
    }
    return undefined;
  };
  visit(doc, { Map: (_key, node) => check(node), Seq: (_key, node) => check(node) });
  return found;
}
