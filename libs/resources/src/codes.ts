import { z } from 'zod';

// Texts that name something and are compared exactly: record codes (a product's SKU, a brand's
// code, a workflow's status codes…), user ids from the customer's identity system, and names that
// identify (a users group's). Each is any printable text, trimmed and stored in Unicode NFC, so
// two spellings that show the same (é as one character, or e and a combining accent) are the
// same text; upper and lower case stay different (docs/decisions/catalog.md: "Codes, case and
// user ids").

/** The most characters (Unicode code points) a record code has. */
export const CODE_MAX = 100;

/** The most characters (Unicode code points) a user id has. */
export const USER_ID_MAX = 200;

/** Characters no code, user id or identifying name holds: controls (Cc), invisible format characters (Cf), line and paragraph separators, lone surrogates. */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

const NAMED_CHARACTERS: Record<string, string> = {
  '\t': 'a tab',
  '\n': 'a line feed (a line break)',
  '\r': 'a carriage return (a line break)',
  '\u0000': 'a NUL character',
  '\u0085': 'a next-line character (a line break)',
  '\u00ad': 'a soft hyphen',
  '\u200b': 'a zero-width space',
  '\u200c': 'a zero-width non-joiner',
  '\u200d': 'a zero-width joiner',
  '\u200e': 'a left-to-right mark',
  '\u200f': 'a right-to-left mark',
  '\u2028': 'a line separator (a line break)',
  '\u2029': 'a paragraph separator (a line break)',
  '\u2060': 'a word joiner',
  '\ufeff': 'a zero-width no-break space (byte order mark)',
};

/** `U+0009`: a character's code point as Unicode writes it. */
const codePoint = (c: string): string => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The first character of a text that a code, a user id or an identifying name may not hold, in
 * words with its position (in characters, from 1): `a tab (U+0009) at position 3`; undefined when
 * every character is printable.
 */
export function refusedCodeCharacter(text: string): string | undefined {
  const chars = [...text];
  const at = chars.findIndex((c) => NOT_PRINTABLE.test(c));
  if (at < 0) return undefined;
  const c = chars[at];
  return `${NAMED_CHARACTERS[c] ?? 'the character'} (${codePoint(c)}) at position ${at + 1}`;
}

/** What each code's description says of the rule, after what is particular to the field. */
export const CODE_RULE =
  'Any printable text: letters of any script, digits, spaces, punctuation and symbols (AB-12/3, CX 100, #123, Açaí-500, 日本-1), ' +
  `at most ${CODE_MAX} characters; no control characters, invisible formatting characters (zero-width spaces, direction marks) or line breaks. ` +
  'Spaces around it are trimmed and it is stored in Unicode NFC (é written as e plus a combining accent is the same code as é). ' +
  'Upper and lower case differ: AB-1 and ab-1 are two codes. ' +
  'In an _in or _nin list filter write a comma inside a code as \\, and a backslash as \\\\; ' +
  'in a spreadsheet list cell write |, ; or , inside a code as \\|, \\; or \\, (and a backslash before them as \\\\)';

/**
 * Trimmed, NFC, printable text of 1 to `max` characters (code points), refused with a message
 * that says the rule: what codes, user ids and identifying names share.
 */
function printableText(max: number, what: string) {
  return z
    .string()
    .trim()
    .normalize('NFC')
    .min(1, `must not be empty (${what} is 1 to ${max} printable characters)`)
    .check(
      z.superRefine((text, ctx) => {
        const length = [...text].length;
        if (length > max)
          ctx.addIssue({ code: 'custom', message: `must have at most ${max} characters (it has ${length})` });
        const refused = refusedCodeCharacter(text);
        if (refused)
          ctx.addIssue({
            code: 'custom',
            message: `holds ${refused}: ${what} is printable text, without control characters, invisible formatting characters or line breaks`,
          });
      }),
    );
}

/**
 * A record's code: any printable text (letters of any script, digits, spaces, punctuation,
 * symbols) of 1 to `max` characters, trimmed, stored in Unicode NFC, compared exactly.
 * `description` says what is particular to the field (`Unique among live products`); the rule
 * follows it in the document.
 */
export function codeSchema(opts: { description: string; example: string; max?: number }) {
  const max = opts.max ?? CODE_MAX;
  return printableText(max, 'a code').meta({
    description: `${opts.description}. ${CODE_RULE}`,
    example: opts.example,
    maxLength: max,
  });
}

/** At most `max` characters, counted as Unicode code points (as JSON Schema's maxLength counts them). */
const atMost = (max: number) =>
  z.string().refine((text) => [...text].length <= max, `must have at most ${max} characters`);

/** A code as the API shows it (stored by the rule of `codeSchema`). */
export const codeViewSchema = (max = CODE_MAX) => atMost(max).meta({ maxLength: max });

/**
 * A user id: the id the customer's identity system gives a user (`auth0|5f1c…`, an e-mail, a
 * UUID, a 24-hex id), as API keys are bound to it and users groups, workflow steps and approval
 * steps name it. Any printable text of 1 to 200 characters, trimmed, stored in Unicode NFC,
 * compared exactly (case included).
 */
export const userIdSchema = printableText(USER_ID_MAX, 'a user id').meta({
  description:
    `A user id, as your identity system gives it (auth0|5f1c2b…, ana@example.com, a UUID): printable text of 1 to ${USER_ID_MAX} characters, ` +
    'without control characters, invisible formatting characters or line breaks; trimmed, stored in Unicode NFC and compared exactly (upper and lower case differ)',
  example: 'auth0|5f1c2b3a4d5e6f7a8b9c0d1e',
  maxLength: USER_ID_MAX,
});

/** A user id as the API shows it. */
export const userIdViewSchema = atMost(USER_ID_MAX).meta({
  maxLength: USER_ID_MAX,
  description: 'A user id, as your identity system gives it',
  example: 'auth0|5f1c2b3a4d5e6f7a8b9c0d1e',
});

/**
 * A name that identifies its record (a users group's: unique among live groups): printable text of
 * 1 to `max` characters, trimmed and stored in Unicode NFC, so two names that differ only in how
 * their accents are encoded are the same name.
 */
export function identifyingNameSchema(max: number, description: string, example: string) {
  return printableText(max, 'a name').meta({
    description: `${description}. Printable text of 1 to ${max} characters, without control characters, invisible formatting characters or line breaks; trimmed and stored in Unicode NFC (é written as e plus a combining accent is the same name as é), compared exactly`,
    example,
    maxLength: max,
  });
}
