// "a" or "an" before a phrase, as it sounds: routes name their resource in words ("Create an
// attribute group", "Get a users group"), and the article follows the first sound of the next word,
// not its first letter. A vowel letter usually sounds like a vowel (an attribute, an import, an
// order, an export), but some start with a "you" or "wuh" sound (a user, a unique code, a one-time
// key); an h is silent in a few words (an hour); an abbreviation read letter by letter goes by the
// name of its first letter (an API key, an SKU, a UUID, a URL).

/** Words that start with a vowel letter and a consonant sound ("you", "wuh"): a unit, but an uninstalled app. */
const CONSONANT_SOUND = /^(uni(?![mn])|use|usa|usu|uti|ura|ure|uro|eu|ewe|one(?![a-z])|once|ubiq)/;

/** Words that start with a silent h, so with a vowel sound. */
const SILENT_H = /^(hour|honest|honou?r|heir)/;

/** Letters whose names start with a vowel sound (eff, aitch, ell, em, en, ar, ess, ex…). */
const VOWEL_SOUND_LETTERS = /^[AEFHILMNORSX]/;

/** `an` or `a` for `phrase`, by the sound of its first word. */
export function indefiniteArticle(phrase: string): 'a' | 'an' {
  const word = phrase
    .trim()
    .split(/\s+/)[0]
    .replace(/^[^A-Za-z]+/, '');
  if (word === '') return 'a';
  // An abbreviation (two capitals or more at its start) is read letter by letter.
  if (/^[A-Z]{2,}/.test(word)) return VOWEL_SOUND_LETTERS.test(word) ? 'an' : 'a';
  const lower = word.toLowerCase();
  if (SILENT_H.test(lower)) return 'an';
  if (CONSONANT_SOUND.test(lower)) return 'a';
  return /^[aeiou]/.test(lower) ? 'an' : 'a';
}

/** `phrase` after its indefinite article: "an attribute group", "a users group". */
export function withArticle(phrase: string): string {
  return `${indefiniteArticle(phrase)} ${phrase}`;
}
