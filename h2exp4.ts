import { referenceIsAmbiguousPlain } from './test/unit/support/reference-yaml-writer.ts';
import { isAmbiguousPlain } from './src/emit/render-files.ts';
process.removeAllListeners('warning'); process.on('warning', () => {});
let n = 0, bad = 0;
const check = (s: string) => { n++; const a = referenceIsAmbiguousPlain(s), b = isAmbiguousPlain(s); if (a !== b) { bad++; if (bad < 60) console.log(JSON.stringify(s), 'ref', a, 'new', b); } };
const alpha4 = [' ', '-', ':', '#', '.', '0', '1', '8', 'e', 'x', 'o', 'b', '_', '+', 'n', 'a', '?', '!', '&', '{', "'", '\u00a0'];
for (const a of alpha4) for (const b of alpha4) for (const c of alpha4) for (const d of alpha4) check(a + b + c + d);
// keywords in case variants, with signs and dots
const words = ['y','n','yes','no','on','off','true','false','null','nil','none','~','.inf','.nan','inf','nan','infinity','<<','='];
const variants = (w: string) => { const out = new Set<string>(); const rec = (i: number, acc: string) => { if (i === w.length) { out.add(acc); return; } rec(i+1, acc + w[i].toLowerCase()); rec(i+1, acc + w[i].toUpperCase()); }; rec(0, ''); return [...out]; };
for (const w of words) for (const v of variants(w)) for (const pre of ['', '+', '-', '.', ' ']) for (const post of ['', ' ', ':', '.', 'x', '0']) check(pre + v + post);
const nums = ['0o12','0O12','0x1F','0X1f','0b101','0B1','1e3','1E3','1e+3','1.5e-3','1_000','1__0','_1','012','08','09','+1','-1','-.5','+.5','.5','5.','0.','1:20','190:20:30','190:20:30.15','1:60','-1:30','2001-12-14','2001-1-2','2001-12-14t21:59:43.10-05:00','2001-12-14 21:59:43.10 -5','2001-12-14T21:59:43Z','2001-12-14 21:59:43.10','20011214','2001-12','0x','0o','0b','0x_','1e','e1','E1','.e1','+e1','1.2.3','1,000','0xGG','1_','1e3.5','0.1.2','10:00','1:2:3','12:00:00','1:5','1:59','1:60','1:00:60'];
for (const x of nums) for (const pre of ['', '+', '-', ' ']) for (const post of ['', ' ', 'x', ':', '_']) check(pre + x + post);
// random strings
let seed = 42; const rnd = (k: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % k; };
const big = [...' -?:,[]{}#&*!|>\'"%@`.0123456789abexonyYNTF_+~<=/\\', '\u00a0', '\u3000', 'é', '😀', '\u2003', 'ü'];
for (let i = 0; i < 300000; i++) { const len = 1 + rnd(12); let s = ''; for (let j = 0; j < len; j++) s += big[rnd(big.length)]; check(s); }
console.log('checked', n, 'bad', bad);
