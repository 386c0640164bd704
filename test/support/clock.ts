/** Now in microseconds since the epoch: the unit of the service's times (tokens, openings). */
export function nowUs(): number {
  return Date.now() * 1000;
}
