// Django 4.2's and DRF 3.16's own words, read from Debian trixie's packages (scripts/test-prerequisites.mjs
// downloads and extracts them) with Python's gettext, as Django merges and formats them: the
// reference the API's messages are compared with, never our catalogue or our formula.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where scripts/test-prerequisites.mjs extracts the packages (the same path, computed the same way). */
const CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'hackerspace-api', 'debian-trixie');
const PYTHON = '/usr/bin/python3';

/** Why the catalogues cannot be read (for `skip`), or false when they can. */
export function debianCataloguesUnavailable(): string | false {
  for (const name of ['python3-django', 'python3-djangorestframework']) {
    if (!fs.existsSync(path.join(CACHE, name, '.complete'))) return `Debian trixie's ${name} is not in ${CACHE}: run node scripts/test-prerequisites.mjs (it downloads it)`;
  }
  if (!fs.existsSync(PYTHON)) return `no ${PYTHON} to read Debian's catalogues with`;
  return false;
}

/** One message as DRF makes it: a msgid with Python str.format values, or DRF's Throttled with its wait. */
export type DebianCase = { msgid: string; params?: Record<string, string | number> } | { throttledWait: number };

// Django's DjangoTranslation: core's catalogue, then each installed app's merged over it, the
// first in INSTALLED_APPS last (rest_framework after django.contrib.auth), each for the locale
// (fr_BE) with its language (fr) beneath; a msgid none has stays itself.
const SCRIPT = String.raw`
import gettext, json, sys
cache, code = sys.argv[1], sys.argv[2]
language, _, region = code.partition('-')
locale = language + ('_' + region.upper() if region else '')
dist = '/usr/lib/python3/dist-packages/'
folders = [cache + '/python3-django' + dist + 'django/conf/locale',
           cache + '/python3-djangorestframework' + dist + 'rest_framework/locale',
           cache + '/python3-django' + dist + 'django/contrib/auth/locale']
merged = {}
for folder in folders:
    chain, t = [], gettext.translation('django', folder, languages=[locale], fallback=True)
    while isinstance(t, gettext.GNUTranslations):
        chain.append(t)
        t = t._fallback
    for catalogue in reversed(chain):
        merged.update((k, v) for k, v in catalogue._catalog.items() if isinstance(k, str) and k != '')
def _(msgid):
    return merged.get(msgid, msgid)
def ngettext(singular, plural, n):
    # Django's ngettext for a message no catalogue has: the singular for 1, else the plural.
    return singular if n == 1 else plural
request = json.load(sys.stdin)
out = {'catalogue': {m: merged[m] for m in request['msgids'] if m in merged}, 'texts': []}
for case in request['cases']:
    if 'throttledWait' in case:
        # rest_framework/exceptions.py Throttled.__init__, as written there.
        wait = case['throttledWait']
        out['texts'].append(' '.join((_('Request was throttled.'), ngettext(_('Expected available in {wait} second.').format(wait=wait), _('Expected available in {wait} seconds.').format(wait=wait), wait))))
    else:
        out['texts'].append(_(case['msgid']).format(**case.get('params', {})))
json.dump(out, sys.stdout, ensure_ascii=False)
`;

/** Debian's translations of `msgids` in `languageCode` (only those it has), and each case's text as DRF words it. */
export function debianWords(languageCode: string, msgids: readonly string[], cases: readonly DebianCase[] = []): { catalogue: Record<string, string>; texts: string[] } {
  const result = spawnSync(PYTHON, ['-c', SCRIPT, CACHE, languageCode], { input: JSON.stringify({ msgids, cases }), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`python3 could not read Debian's catalogues: ${result.stderr}`);
  return JSON.parse(result.stdout) as { catalogue: Record<string, string>; texts: string[] };
}
