import { referenceIsAmbiguousPlain } from './test/unit/support/reference-yaml-writer.ts';
import { isAmbiguousPlain } from './src/emit/render-files.ts';
process.removeAllListeners('warning'); process.on('warning', () => {});
const alpha = [' ', '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`', '.', '0', '1', '7', '9', 'a', 'b', 'e', 'x', 'o', 'n', 'y', 'Y', 'N', '_', '+', '~', '<', '=', '/', '\\', 'T', 'Z', 'i', 'f', 'I', 'O'];
let n = 0, bad = 0;
const check = (s: string) => { n++; const a = referenceIsAmbiguousPlain(s), b = isAmbiguousPlain(s); if (a !== b) { bad++; if (bad < 60) console.log(JSON.stringify(s), 'ref', a, 'new', b); } };
check('');
for (const a of alpha) { check(a); for (const b of alpha) { check(a + b); for (const c of alpha) check(a + b + c); } }
console.log('checked', n, 'bad', bad);
