import { execFileSync } from 'node:child_process';
import { referenceStringifyYaml } from './test/unit/support/reference-yaml-writer.ts';
const vals: string[] = [];
for (let c = 0; c < 0x100; c++) { const ch = String.fromCharCode(c); vals.push(ch, `a${ch}b`, `${ch}x`, `x${ch}`); }
for (const ch of ['\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff', '\ud800', '\udc00', '\u{1F600}']) vals.push(ch, `a${ch}b`, `${ch}x`, `x${ch}`);
const long = 'the quick brown fox jumps over the lazy dog';
for (const mid of ['\n', '\r\n', ' \n', '\n ', '\t\n', '\n\t', '\n\n', ' \n \n ', '\n\n\n', '\x01\n', '\n\x01', '\r', ' ', '  ', '\t']) {
  vals.push(long + mid + long, mid + long, long + mid, mid + long + mid);
}
vals.push('---', '--- x', '...', 'a\n---\nb', long + '\n---\n' + long, long + '\n...\n' + long, '%YAML 1.1', long + '\n%x\n' + long, '#x', long + '\n#x', '\n# c\n' + long);
const docs = vals.map((v) => referenceStringifyYaml({ k: v }));
const out = JSON.parse(execFileSync('/tmp/h2goracle/oracle', { input: JSON.stringify(docs) }).toString());
let bad = 0;
vals.forEach((v, i) => {
  const r = out[i];
  const problems: string[] = [];
  for (const ver of ['v2', 'v3']) {
    if (r[ver + 'err']) problems.push(`${ver} error: ${r[ver + 'err']}`);
    else if (r[ver].k !== v) problems.push(`${ver} read ${JSON.stringify(r[ver].k)}`);
  }
  if (problems.length) { bad++; if (bad < 400) console.log(JSON.stringify(v), '=>', JSON.stringify(docs[i].slice(0, 120)), problems.join('; ')); }
});
console.log('bad', bad, 'of', vals.length);
