import { ImportError, type FilePosition } from './import-error.js';

/**
 * Consecutive elements of the top-level array: `text` is those elements with the commas and
 * whitespace between them, so `[${text}]` is a JSON array of them. `starts` gives where each
 * element begins in `text`, to place a parse error.
 */
export interface ElementRun {
  text: string;
  starts: number[];
  position: FilePosition;
}

const enum State {
  Start,
  First,
  Next,
  Element,
  After,
  Done,
}

/** The run being collected from the current chunk (chunk indexes). */
interface OpenRun {
  start: number;
  end: number;
  starts: number[];
  position: FilePosition;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const BOM = 0xfeff;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Cuts a JSON array that arrives in chunks into runs of whole elements, so that a fixture of any
 * size is parsed a chunk at a time with JSON.parse (far faster than a token-level streaming
 * parser). Only strings and nesting are tracked here; the syntax inside elements is left to
 * JSON.parse, the syntax between them is checked here.
 *
 * A syntax error is not thrown at once: push() first returns the runs before it, and
 * throwIfFailed() throws it, so that problems are reported in file order.
 */
export class JsonArraySplitter {
  private state = State.Start;
  private depth = 0;
  private inString = false;
  /** The previous chunk ended inside a string on an escaping backslash. */
  private escaped = false;
  /** The element is a bare number, `true`, `false` or `null`, which ends at a delimiter. */
  private bare = false;
  /** Text of an element that began in an earlier chunk, and where it began. */
  private pieces: string[] = [];
  private piecesPosition: FilePosition = { line: 1, column: 1, offset: 0 };
  /** Offset in the file of the current element's first character. */
  private elementStart = 0;
  private failure: ImportError | null = null;

  // Line bookkeeping, advanced lazily so that each chunk is searched for newlines once.
  private chunk = '';
  private chunkOffset = 0;
  private countedTo = 0;
  private line = 1;
  private lineStartOffset = 0;

  /** Feeds the next chunk of text; returns the runs of elements it completes. */
  push(chunk: string): ElementRun[] {
    this.throwIfFailed();
    this.chunk = chunk;
    this.countedTo = 0;
    const runs: ElementRun[] = [];
    const run: OpenRun = { start: -1, end: -1, starts: [], position: this.piecesPosition };
    try {
      this.scanChunk(chunk, runs, run);
    } catch (error) {
      if (!(error instanceof ImportError)) throw error;
      this.failure = error;
    }
    if (run.start !== -1) runs.push({ text: chunk.slice(run.start, run.end), starts: run.starts, position: run.position });
    this.positionAt(chunk.length);
    this.chunkOffset += chunk.length;
    return runs;
  }

  /** Call after the last chunk: fails unless the array was closed. */
  end(): void {
    this.throwIfFailed();
    if (this.state === State.Done) return;
    // push() has already moved chunkOffset past the last chunk.
    const where = { line: this.line, column: this.chunkOffset - this.lineStartOffset + 1, offset: this.chunkOffset };
    const reason =
      this.state === State.Start
        ? 'the file holds no JSON array (expected "[")'
        : this.state === State.Element && this.inString
          ? 'unexpected end of file inside a string'
          : 'unexpected end of file: the array is not closed with "]"';
    throw syntaxError(reason, where);
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  private scanChunk(s: string, runs: ElementRun[], run: OpenRun): void {
    let i = 0;
    while (i < s.length) {
      if (this.state !== State.Element) {
        i = this.scanBetween(s, i);
        continue;
      }
      const continued = this.pieces.length > 0;
      const begin = continued ? 0 : this.elementStart - this.chunkOffset;
      const end = this.scanElement(s, i);
      if (end === -1) {
        if (!continued) this.piecesPosition = this.positionAt(begin);
        this.pieces.push(s.slice(begin));
        return;
      }
      this.state = State.After;
      i = end;
      if (continued) {
        runs.push({ text: this.pieces.join('') + s.slice(0, end), starts: [0], position: this.piecesPosition });
        this.pieces = [];
      } else {
        if (run.start === -1) {
          run.start = begin;
          run.position = this.positionAt(begin);
        }
        run.starts.push(begin - run.start);
        run.end = end;
      }
    }
  }

  /** Whitespace and punctuation outside elements; returns the index to continue from. */
  private scanBetween(s: string, i: number): number {
    const c = s.charCodeAt(i);
    if (isWhitespace(c)) return i + 1;
    switch (this.state) {
      case State.Start:
        if (c === BOM && this.chunkOffset + i === 0) return i + 1;
        if (c !== OPEN_BRACKET) throw this.unexpected(s, i, 'a fixture must be a JSON array starting with "["');
        this.state = State.First;
        return i + 1;
      case State.First:
        if (c === CLOSE_BRACKET) {
          this.state = State.Done;
          return i + 1;
        }
        return this.startElement(s, i);
      case State.Next:
        if (c === CLOSE_BRACKET) throw this.unexpected(s, i, 'expected a value after ","');
        return this.startElement(s, i);
      case State.After:
        if (c === COMMA) this.state = State.Next;
        else if (c === CLOSE_BRACKET) this.state = State.Done;
        else throw this.unexpected(s, i, 'expected "," or "]" after an array element');
        return i + 1;
      default:
        throw this.unexpected(s, i, 'unexpected data after the end of the array');
    }
  }

  private startElement(s: string, i: number): number {
    const c = s.charCodeAt(i);
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET) throw this.unexpected(s, i, 'expected a value');
    this.elementStart = this.chunkOffset + i;
    this.state = State.Element;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.bare = false;
    return i;
  }

  /** The hot loop: returns the index just past the element, or -1 if the chunk ends first. */
  private scanElement(s: string, from: number): number {
    const n = s.length;
    let i = from;
    let depth = this.depth;
    if (depth === 0 && !this.inString && !this.bare) {
      // The first character decides the element's kind.
      const c = s.charCodeAt(i++);
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth = 1;
      else if (c === QUOTE) this.inString = true;
      else this.bare = true;
    }
    if (this.bare) return this.scanBare(s, i);
    for (;;) {
      if (this.inString) {
        i = this.skipString(s, i);
        if (i === -1) break;
        if (depth === 0) return i;
      }
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c === QUOTE) break;
        if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
        else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
      }
      if (i >= n) break;
      this.inString = true;
      i++;
    }
    this.depth = depth;
    return -1;
  }

  /**
   * From inside a string to just past its closing quote (-1 if the chunk ends first). Jumps from
   * quote to quote: a quote preceded by an odd run of backslashes is escaped.
   */
  private skipString(s: string, from: number): number {
    let i = from;
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    for (;;) {
      const quote = s.indexOf('"', i);
      if (quote === -1) {
        this.escaped = oddBackslashesBefore(s, s.length, i);
        return -1;
      }
      if (!oddBackslashesBefore(s, quote, i)) {
        this.inString = false;
        return quote + 1;
      }
      i = quote + 1;
    }
  }

  private scanBare(s: string, from: number): number {
    for (let i = from; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE || isWhitespace(c)) {
        this.bare = false;
        return i;
      }
    }
    return -1;
  }

  /** Line and column of index `i` of the current chunk; `i` never decreases within a chunk. */
  private positionAt(i: number): FilePosition {
    const s = this.chunk;
    for (let nl = s.indexOf('\n', this.countedTo); nl !== -1 && nl < i; nl = s.indexOf('\n', nl + 1)) {
      this.line++;
      this.lineStartOffset = this.chunkOffset + nl + 1;
    }
    this.countedTo = Math.max(this.countedTo, i);
    const offset = this.chunkOffset + i;
    return { line: this.line, column: offset - this.lineStartOffset + 1, offset };
  }

  private unexpected(s: string, i: number, reason: string): ImportError {
    const found = String.fromCodePoint(s.codePointAt(i) ?? 0);
    return syntaxError(`${reason}, found ${JSON.stringify(found)}`, this.positionAt(i));
  }
}

/** Whether the backslashes right before `end` (not looking before `floor`) are an odd run. */
function oddBackslashesBefore(s: string, end: number, floor: number): boolean {
  let i = end - 1;
  while (i >= floor && s.charCodeAt(i) === BACKSLASH) i--;
  return (end - 1 - i) % 2 === 1;
}

export function syntaxError(reason: string, position: FilePosition): ImportError {
  return new ImportError(`malformed JSON at line ${position.line}, column ${position.column}: ${reason}`, { position });
}

/** Position of `relative` characters into text that starts at `start`. */
export function positionWithin(text: string, start: FilePosition, relative: number): FilePosition {
  let line = start.line;
  let lineStart = -1;
  for (let nl = text.indexOf('\n'); nl !== -1 && nl < relative; nl = text.indexOf('\n', nl + 1)) {
    line++;
    lineStart = nl;
  }
  const column = lineStart === -1 ? start.column + relative : relative - lineStart;
  return { line, column, offset: start.offset + relative };
}
