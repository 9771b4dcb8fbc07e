/**
 * The one order of text in the tool's answers: by UTF-16 code unit, as `sort()` with no comparator.
 * Not `localeCompare`, whose order is the user's locale's (Danish sorts "aa" after "z", capitals
 * first; Turkish sorts "ı" before "I"): `--json` would differ from one machine to the next, and a
 * kept answer (store/cache/answer-memo.ts, keyed on no locale) would hand one locale's order to another.
 */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
