// `npm run -w client build` (and prepack, so `npm pack -w client`): dist/ from scratch, so a file
// whose source is gone never ships. tsc emits the JavaScript and declarations; src/schema.d.ts,
// a declaration file, is not emitted by tsc and is copied beside them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');

fs.rmSync(dist, { recursive: true, force: true });
// The service's checkout provides TypeScript (a devDependency of the root package).
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', root], { stdio: 'inherit' });
fs.copyFileSync(path.join(root, 'src/schema.d.ts'), path.join(dist, 'schema.d.ts'));
