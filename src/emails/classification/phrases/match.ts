/**
 * A phrase a server writes, as a data-table entry: a lower-case string the text contains, a list
 * of lower-case pieces the text contains in that order (with anything between them), or a
 * constant pattern. Texts are matched lower-cased, with runs of white space as one space.
 */
export type Phrase = string | readonly string[] | RegExp;

/** True when `text` (already lower-cased and collapsed) says any of `phrases`. */
export function says(text: string, phrases: readonly Phrase[]): boolean {
  if (text === "") return false;
  for (const phrase of phrases) {
    if (typeof phrase === "string") {
      if (text.includes(phrase)) return true;
    } else if (phrase instanceof RegExp) {
      if (phrase.test(text)) return true;
    } else if (inOrder(text, phrase)) return true;
  }
  return false;
}

function inOrder(text: string, pieces: readonly string[]): boolean {
  let from = 0;
  for (const piece of pieces) {
    const at = text.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  return true;
}
