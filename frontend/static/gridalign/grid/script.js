// Which way a sentence is written: pure, unit-tested in Node.
//
// A token's direction is that of its first strongly directional letter (as the Unicode
// bidirectional algorithm's "first strong" rule, and dir="auto", decide); digits, punctuation
// and emoji have none. A sentence is right to left when more of its tokens are right to left
// than left to right (an English name or a number inside an Arabic sentence does not turn it).

// Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic supplements and
// presentation forms; and the letters of the other scripts (Latin, Greek, Cyrillic, CJK …).
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]|\uD802[\uDC00-\uDFFF]|\uD803[\uDC00-\uDE7F]|\uD83A[\uDC00-\uDFFF]|\uD83B[\uDC00-\uDEFF]/;
const STRONG = /[\p{L}\p{M}]/u;

/** "rtl", "ltr", or "" for a token with no letters. */
export function tokenDirection(token) {
  for (const ch of String(token)) {
    if (RTL.test(ch)) return "rtl";
    if (STRONG.test(ch)) return "ltr";
  }
  return "";
}

/** "rtl" when most directional tokens are right to left, else "ltr". */
export function sentenceDirection(tokens) {
  let rtl = 0;
  let ltr = 0;
  for (const t of tokens) {
    const d = tokenDirection(t);
    if (d === "rtl") rtl += 1;
    else if (d === "ltr") ltr += 1;
  }
  return rtl > ltr ? "rtl" : "ltr";
}

/**
 * Which way the grid's columns run: the column sentence's own direction, so its words read in
 * their order along the top whatever the rows hold (an Arabic row sentence beside English
 * columns keeps the English left to right). The row words sit on the side the columns start
 * from; the rows themselves always run top to bottom.
 */
export function gridDirection(columnTokens) {
  return sentenceDirection(columnTokens);
}
