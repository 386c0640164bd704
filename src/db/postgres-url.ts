/** The URL without its password, for logs and messages. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    // libpq parameters may carry secrets too (`?password=…`, `?sslpassword=…`).
    for (const key of [...parsed.searchParams.keys()]) {
      if (/password|secret|key/i.test(key)) parsed.searchParams.set(key, '***');
    }
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
