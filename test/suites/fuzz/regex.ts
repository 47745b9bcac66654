import type { Prng } from './prng';

/** A piece of a parsed pattern. */
type Node =
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; options: Node[] }
  | { t: 'repeat'; node: Node; min: number; max: number }
  | { t: 'set'; ranges: [number, number][]; negated: boolean };

const range = (from: string, to = from): [number, number] => [from.codePointAt(0)!, to.codePointAt(0)!];
const DIGIT: [number, number][] = [range('0', '9')];
const WORD: [number, number][] = [range('a', 'z'), range('A', 'Z'), range('0', '9'), range('_')];
const SPACE: [number, number][] = [range(' '), range('\t'), range('\n'), range('\r'), range('\f'), range('\v')];
/** What a negated set or `.` draws from: printable ASCII and a few letters beyond it. */
const POOL = [...Array.from({ length: 95 }, (_, i) => 0x20 + i), ...[...'éçãÖß中😀'].map((c) => c.codePointAt(0)!)];

/** Parses the subset of ECMAScript patterns the OpenAPI document uses (no lookarounds, no backreferences). */
class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.src.length) throw new Error(`unexpected '${this.src[this.i]}' at ${this.i} in /${this.src}/`);
    return node;
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.src[this.i] === '|') {
      this.i++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0] : { t: 'alt', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const atom = this.atom();
      if (atom) items.push(this.quantified(atom));
    }
    return { t: 'seq', items };
  }

  private quantified(node: Node): Node {
    const c = this.src[this.i];
    let min: number;
    let max: number;
    if (c === '?' || c === '*' || c === '+') {
      this.i++;
      [min, max] = c === '?' ? [0, 1] : c === '*' ? [0, Infinity] : [1, Infinity];
    } else if (c === '{' && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.i))) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i))!;
      this.i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    } else return node;
    if (this.src[this.i] === '?') this.i++; // lazy: generates the same strings
    return { t: 'repeat', node, min, max };
  }

  private atom(): Node | undefined {
    const c = this.src[this.i++];
    switch (c) {
      case '^':
      case '$':
        return undefined;
      case '(': {
        if (this.src[this.i] === '?') {
          if (this.src[this.i + 1] !== ':') throw new Error(`lookarounds are not supported: /${this.src}/`);
          this.i += 2;
        }
        const inner = this.alternation();
        if (this.src[this.i++] !== ')') throw new Error(`unclosed group in /${this.src}/`);
        return inner;
      }
      case '[':
        return this.set();
      case '.':
        return { t: 'set', ranges: [range('\n'), range('\r')], negated: true };
      case '\\':
        return this.escape(false);
      default:
        return { t: 'set', ranges: [range(c)], negated: false };
    }
  }

  /** After a backslash: a class escape or one character. */
  private escape(inSet: boolean): Node & { t: 'set' } {
    const c = this.src[this.i++];
    const set = (ranges: [number, number][], negated = false) => ({ t: 'set' as const, ranges, negated });
    switch (c) {
      case 'd':
        return set(DIGIT);
      case 'D':
        return set(DIGIT, true);
      case 'w':
        return set(WORD);
      case 'W':
        return set(WORD, true);
      case 's':
        return set(SPACE);
      case 'S':
        return set(SPACE, true);
      case 'x':
      case 'u': {
        const len = c === 'x' ? 2 : 4;
        const code = parseInt(this.src.slice(this.i, this.i + len), 16);
        this.i += len;
        return set([[code, code]]);
      }
      case '0':
        return set([[0, 0]]);
      case 'n':
        return set([range('\n')]);
      case 'r':
        return set([range('\r')]);
      case 't':
        return set([range('\t')]);
      case 'b':
        if (inSet) return set([[8, 8]]);
        throw new Error(`word boundaries are not supported: /${this.src}/`);
      default:
        return set([range(c)]);
    }
  }

  private set(): Node {
    const negated = this.src[this.i] === '^';
    if (negated) this.i++;
    const ranges: [number, number][] = [];
    let first = true;
    while (this.src[this.i] !== ']' || first) {
      first = false;
      if (this.i >= this.src.length) throw new Error(`unclosed set in /${this.src}/`);
      const lo = this.setChar();
      if (lo.length === 1 && this.src[this.i] === '-' && this.src[this.i + 1] !== ']') {
        this.i++;
        const hi = this.setChar();
        ranges.push([lo[0][0], hi[0][1]]);
      } else ranges.push(...lo);
    }
    this.i++;
    return { t: 'set', ranges, negated };
  }

  /** One member of a set: a character (one range of one) or a class escape (its ranges). */
  private setChar(): [number, number][] {
    const c = this.src[this.i++];
    if (c !== '\\') {
      const code = this.src.codePointAt(this.i - 1)!;
      if (code > 0xffff) this.i++;
      return [[code, code]];
    }
    const e = this.escape(true);
    if (e.negated) throw new Error(`negated class escapes inside a set are not supported: /${this.src}/`);
    return e.ranges;
  }
}

/** How many times an unbounded repeat goes round at most (a pattern's `*` stays short). */
const UNBOUNDED_EXTRA = 3;

function generate(node: Node, rng: Prng, out: string[]): void {
  switch (node.t) {
    case 'seq':
      for (const item of node.items) generate(item, rng, out);
      return;
    case 'alt':
      generate(rng.pick(node.options), rng, out);
      return;
    case 'repeat': {
      const max = Math.min(node.max, node.min + UNBOUNDED_EXTRA);
      const n = rng.int(node.min, max);
      for (let k = 0; k < n; k++) generate(node.node, rng, out);
      return;
    }
    case 'set': {
      const inSet = (code: number) => node.ranges.some(([lo, hi]) => code >= lo && code <= hi);
      if (node.negated) {
        const pool = POOL.filter((code) => !inSet(code));
        out.push(String.fromCodePoint(rng.pick(pool)));
        return;
      }
      // Whitespace classes draw a plain space: a tab or line break would not survive a header.
      const ranges = node.ranges === SPACE ? [range(' ')] : node.ranges;
      const [lo, hi] = rng.pick(ranges);
      out.push(String.fromCodePoint(rng.int(lo, hi)));
      return;
    }
  }
}

const cache = new Map<string, Node>();

/** A string that `new RegExp(pattern, 'u')` matches, drawn at random; throws on syntax it does not know. */
export function sampleMatching(pattern: string, rng: Prng): string {
  let node = cache.get(pattern);
  if (!node) {
    node = new Parser(pattern).parse();
    cache.set(pattern, node);
  }
  const out: string[] = [];
  generate(node, rng, out);
  return out.join('');
}
