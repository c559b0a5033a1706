import { execFileSync } from 'node:child_process';
import { stringifyYaml } from './src/emit/render-files.ts';
process.removeAllListeners('warning'); process.on('warning', () => {});
const vals: string[] = [];
for (let c = 0; c < 0x100; c++) { const ch = String.fromCharCode(c); vals.push(ch, `a${ch}b`, `${ch}x`, `x${ch}`); }
for (const ch of ['\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff', '\u{1F600}', '\u{10FFFF}', '\u00a0']) vals.push(ch, `a${ch}b`, `${ch}x`, `x${ch}`);
let seed = 7; const rnd = (k: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % k; };
const al = [...' -:#\\"\'ab{[.0', '\u00a0', '\n', '\r', '\t', '\x85', '\u2028', '\u2029', '\ufeff', '\x7f', '\x00', '\x1b', '\x9f', '\ufffe', '😀', '\u{10FFFF}'];
for (let i = 0; i < 20000; i++) { let s = ''; const len = 1 + rnd(60); for (let j = 0; j < len; j++) s += al[rnd(al.length)]; vals.push(s); }
const docs = vals.map((v) => stringifyYaml({ k: v, m: { [v]: 1 } }));
const out = JSON.parse(execFileSync('/tmp/h2goracle/oracle', { input: JSON.stringify(docs), maxBuffer: 1 << 28 }).toString());
let bad = 0;
vals.forEach((v, i) => {
  const r = out[i]; const problems: string[] = [];
  for (const ver of ['v2', 'v3']) {
    if (r[ver + 'err']) problems.push(`${ver} error: ${r[ver + 'err']}`);
    else { if (r[ver].k !== v) problems.push(`${ver} read ${JSON.stringify(r[ver].k)}`); const keys = Object.keys(r[ver].m); if (keys.length !== 1 || keys[0] !== v) problems.push(`${ver} key ${JSON.stringify(keys)}`); }
  }
  if (problems.length) { bad++; if (bad < 30) console.log(JSON.stringify(v), '=>', JSON.stringify(docs[i].slice(0, 150)), problems.join('; ')); }
});
console.log('bad', bad, 'of', vals.length);
