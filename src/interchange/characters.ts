/** Lengths as Django and PostgreSQL's varchar count them: in code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The first `max` code points (a surrogate pair is never split). */
export function cutToCodePoints(text: string, max: number): string {
  return Array.from(text).slice(0, max).join('');
}
