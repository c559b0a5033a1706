// `npm run docs:diagnostics`: writes docs/diagnostics.md from the table of diagnostic codes.
import { writeFileSync } from 'node:fs';
import { diagnosticsMarkdown } from '../src/diagnostics/diagnostics-doc.js';

writeFileSync('docs/diagnostics.md', diagnosticsMarkdown());
console.log('wrote docs/diagnostics.md');
