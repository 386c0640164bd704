/** Project status letters as people read them, in the dashboard's order. */
export const PROJECT_STATUS_NAMES: Readonly<Record<string, string>> = {
  i: 'In progress',
  p: 'Proposed',
  d: 'Blocked',
  f: 'Finished',
  a: 'Abandoned',
};
