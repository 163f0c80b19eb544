/**
 * Where a YAML document first nests past a level, read from the parser's
 * syntax tree without recursion: the tree is built with a loop, while
 * composing the document (and walking the tree with yaml's own visitor)
 * recurses and runs out of stack on a file nested a few thousand levels deep.
 */
import { CST, Parser } from 'yaml';

export interface DeepPlace {
  /** The JSON pointer of the first collection past the level, in document order, as the JSON check names it. */
  pointer: string;
  /** Where that collection starts in the text. */
  offset: number;
}

type Item = CST.CollectionItem;

/** The first collection nested deeper than `limit` levels (the root is level 0), or undefined. */
export function yamlDeeperThan(text: string, limit: number): DeepPlace | undefined {
  let document: CST.Document | undefined;
  for (const token of new Parser().parse(text)) {
    if (token.type === 'document') { document = token; break; }
  }
  if (document?.value === undefined) return undefined;
  const stack: Array<[CST.Token, string, number]> = [[document.value, '', 0]];
  while (stack.length > 0) {
    const [token, pointer, depth] = stack.pop()!;
    const items = collectionItems(token);
    if (items === undefined) continue;
    if (depth > limit) return { pointer, offset: token.offset };
    const children: Array<[CST.Token, string, number]> = [];
    const keyed = isMapping(token);
    items.forEach((item, index) => {
      if (item.value === undefined || item.value === null) return;
      if (keyed) children.push([item.value, `${pointer}/${segment(keyText(item))}`, depth + 1]);
      // A `key: value` pair inside a flow list is a one-member mapping at that index.
      else if (item.key !== undefined && item.key !== null) children.push([item.value, `${pointer}/${index}/${segment(keyText(item))}`, depth + 2]);
      else children.push([item.value, `${pointer}/${index}`, depth + 1]);
    });
    // Pushed last to first, so they come off the stack in document order: the first deep value is the one named.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return undefined;
}

function collectionItems(token: CST.Token): Item[] | undefined {
  if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') return token.items as Item[];
  return undefined;
}

function isMapping(token: CST.Token): boolean {
  return token.type === 'block-map' || (token.type === 'flow-collection' && token.start.source === '{');
}

function keyText(item: Item): string {
  const key = item.key;
  if (key === undefined || key === null) return '';
  const scalar = CST.resolveAsScalar(key);
  return scalar ? scalar.value : CST.stringify(key).trim();
}

const segment = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');
