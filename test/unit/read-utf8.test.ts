/** readUtf8File (src/util/read-utf8.ts): the same text as readFileSync(path, 'utf8'), and the same errors. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { readUtf8File } from '../../src/util/read-utf8.js';

const dir = mkdtempSync(join(tmpdir(), 'mirrorc-read-utf8-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The error code `read` throws for `path`. */
function code(read: (path: string) => string, path: string): string | undefined {
  try {
    read(path);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
  return undefined;
}

describe('readUtf8File', () => {
  const contents: [string, Buffer][] = [
    ['empty', Buffer.alloc(0)],
    ['ASCII', Buffer.from('{"a": 1}\n')],
    ['Latin-1, CJK and a surrogate pair', Buffer.from('Zoë Ångström 山田太郎 😀 \u0085\u2028')],
    ['a byte order mark', Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])],
    ['a lone continuation byte', Buffer.from([0x61, 0x80, 0x62])],
    ['an overlong encoding', Buffer.from([0xc0, 0x80, 0xe0, 0x80, 0x80])],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['a code point above U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
    ['a truncated sequence at the end', Buffer.from([0x61, 0xf0, 0x9f, 0x98])],
    ['a 0xFF byte', Buffer.from([0xff, 0x61])],
  ];
  for (const [name, bytes] of contents) {
    test(`reads ${name} as readFileSync(path, 'utf8') does`, () => {
      const file = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.txt`);
      writeFileSync(file, bytes);
      assert.equal(readUtf8File(file), readFileSync(file, 'utf8'));
    });
  }

  test('throws the same errors (a missing file, a folder)', () => {
    assert.equal(code(readUtf8File, join(dir, 'missing')), 'ENOENT');
    assert.equal(code(readUtf8File, dir), code((p) => readFileSync(p, 'utf8'), dir));
    assert.equal(code(readUtf8File, dir), 'EISDIR');
  });
});
