/**
 * Text helpers: the module the review-loop example documents. The producer
 * writes docs/api.md about it; the reviewer checks that document against
 * the exports below.
 */

/**
 * Turns text into a lower-case URL slug: every run of characters other than
 * ASCII letters and digits becomes one separator, with none at either end.
 * slugify("Hello, World!") returns "hello-world".
 */
export function slugify(text, separator = '-') {
  const words = text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  return words.join(separator);
}

/**
 * Shortens text to at most max characters. Cut text ends with "…", which
 * counts towards max; text that already fits is returned as it is.
 */
export function truncate(text, max) {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * Counts the words in text: runs of letters or digits, in any script.
 * TODO: count a hyphenated word such as "well-known" as one word.
 */
export function wordCount(text) {
  return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
}
