/**
 * Label keys, values and selectors (src/model/label-selector.ts): validation as the API server
 * does it, matching, and the `labelSelector` query string used for observation.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  labelKeyProblem,
  labelSelectorProblems,
  labelValueProblem,
  selectorMatches,
  selectorToQuery,
  type LabelSelector,
} from '../../src/model/index.js';

describe('labelKeyProblem', () => {
  test('accepts plain and prefixed keys that the API server accepts', () => {
    // GIVEN keys with and without a DNS-subdomain prefix, including '.', '-', '_' in the name part
    const valid = ['app', 'mirror.linkerd.io/exported', 'example.com/a.b-c_d', 'a', 'A1', `${'a'.repeat(63)}`, `${'p.'.repeat(100)}p/n`];
    // WHEN each is checked / THEN none has a problem
    for (const key of valid) assert.equal(labelKeyProblem(key), undefined, key);
  });

  test('rejects a bad name part and names the key', () => {
    // GIVEN keys whose name part is empty, too long, or starts/ends with a non-alphanumeric
    const invalid = ['', '-app', 'app-', '_x', 'x.', 'a b', `${'a'.repeat(64)}`, 'example.com/', 'a/b/c!'];
    for (const key of invalid) {
      // WHEN checked
      const problem = labelKeyProblem(key);
      // THEN a problem is reported that quotes the key
      assert.ok(problem, `expected a problem for ${JSON.stringify(key)}`);
      assert.ok(problem.includes(`"${key}"`), problem);
    }
  });

  test('rejects a prefix that is not a lower-case DNS subdomain, and says it is the prefix', () => {
    // GIVEN keys with an upper-case, empty, too long or malformed prefix
    const invalid = ['Example.com/app', '/app', 'exa_mple.com/app', '-example.com/app', `${'a'.repeat(254)}/app`];
    for (const key of invalid) {
      // WHEN checked
      const problem = labelKeyProblem(key);
      // THEN the problem mentions the prefix
      assert.ok(problem, `expected a problem for ${JSON.stringify(key)}`);
      assert.match(problem, /prefix/);
    }
  });
});

describe('labelValueProblem', () => {
  test('accepts the empty value and values up to 63 valid characters', () => {
    for (const value of ['', 'true', 'remote-discovery', 'v1.2_3', 'A', 'a'.repeat(63)]) {
      assert.equal(labelValueProblem(value), undefined, value);
    }
  });

  test('rejects values that are too long or have bad characters, naming the value', () => {
    for (const value of ['a'.repeat(64), '-a', 'a-', 'a b', 'a/b', 'ü']) {
      const problem = labelValueProblem(value);
      assert.ok(problem, `expected a problem for ${JSON.stringify(value)}`);
      assert.ok(problem.includes(`"${value}"`), problem);
    }
  });
});

describe('labelSelectorProblems', () => {
  test('a valid selector has no problem', () => {
    // GIVEN a selector using every operator correctly
    const selector: LabelSelector = {
      matchLabels: { 'mirror.linkerd.io/exported': 'true' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['web', 'api'] },
        { key: 'stage', operator: 'NotIn', values: ['dev'] },
        { key: 'team', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist', values: [] },
      ],
    };
    // WHEN validated / THEN nothing is reported
    assert.deepEqual(labelSelectorProblems(selector), []);
  });

  test('an empty selector is reported, since Linkerd treats it as "match nothing"', () => {
    for (const selector of [{}, { matchLabels: {} }, { matchExpressions: [] }, { matchLabels: {}, matchExpressions: [] }]) {
      const problems = labelSelectorProblems(selector);
      assert.equal(problems.length, 1, JSON.stringify(selector));
      assert.match(problems[0]!, /empty/);
    }
  });

  test('In and NotIn without values are reported with the key and operator', () => {
    // GIVEN In with no values array and NotIn with an empty one
    const problems = labelSelectorProblems({
      matchExpressions: [
        { key: 'tier', operator: 'In' },
        { key: 'stage', operator: 'NotIn', values: [] },
      ],
    });
    // THEN each is reported once, naming key and operator
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, /"tier".*In needs at least one value/);
    assert.match(problems[1]!, /"stage".*NotIn needs at least one value/);
  });

  test('Exists and DoesNotExist with values are reported', () => {
    const problems = labelSelectorProblems({
      matchExpressions: [
        { key: 'team', operator: 'Exists', values: ['x'] },
        { key: 'legacy', operator: 'DoesNotExist', values: ['y'] },
      ],
    });
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, /"team".*Exists takes no values/);
    assert.match(problems[1]!, /"legacy".*DoesNotExist takes no values/);
  });

  test('an unknown operator is reported with the valid ones listed', () => {
    // GIVEN an operator the API server does not know (e.g. a typo in a plain-JS fleet file)
    const selector = { matchExpressions: [{ key: 'tier', operator: 'in', values: ['web'] }] } as unknown as LabelSelector;
    // WHEN validated
    const problems = labelSelectorProblems(selector);
    // THEN the operator is named and the alternatives are given
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /unknown operator "in"/);
    assert.match(problems[0]!, /In, NotIn, Exists or DoesNotExist/);
  });

  test('bad keys and values in matchLabels and matchExpressions are all reported', () => {
    // GIVEN a bad matchLabels key, a bad matchLabels value, a bad expression key and a bad expression value
    const problems = labelSelectorProblems({
      matchLabels: { 'Bad Key': 'x', good: 'bad value' },
      matchExpressions: [{ key: '-k', operator: 'In', values: ['ok', 'not ok'] }],
    });
    // THEN all four are listed
    assert.equal(problems.length, 4, problems.join('\n'));
    assert.ok(problems.some((p) => p.includes('"Bad Key"')));
    assert.ok(problems.some((p) => p.includes('"bad value"')));
    assert.ok(problems.some((p) => p.includes('"-k"')));
    assert.ok(problems.some((p) => p.includes('"not ok"')));
  });

  test('a non-string matchLabels value is reported', () => {
    const problems = labelSelectorProblems({ matchLabels: { app: true } } as unknown as LabelSelector);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /matchLabels\["app"\] must be a string/);
  });
});

describe('selectorMatches', () => {
  const labels = { app: 'web', tier: 'frontend', 'mirror.linkerd.io/exported': 'true' };

  test('matchLabels needs every pair to be equal', () => {
    assert.equal(selectorMatches({ matchLabels: { app: 'web', tier: 'frontend' } }, labels), true);
    assert.equal(selectorMatches({ matchLabels: { app: 'web', tier: 'backend' } }, labels), false);
    assert.equal(selectorMatches({ matchLabels: { missing: 'x' } }, labels), false);
    // the label value is compared as a string: "True" is not "true"
    assert.equal(selectorMatches({ matchLabels: { 'mirror.linkerd.io/exported': 'True' } }, labels), false);
  });

  test('In matches only a present key with a listed value', () => {
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['backend', 'frontend'] }] }, labels), true);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['backend'] }] }, labels), false);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'missing', operator: 'In', values: ['x'] }] }, labels), false);
  });

  test('In with an empty-string value does not match a missing key', () => {
    // GIVEN a selector accepting the empty value, and labels without the key
    const selector: LabelSelector = { matchExpressions: [{ key: 'zone', operator: 'In', values: [''] }] };
    // THEN a missing key is not the empty value, but a present empty value is
    assert.equal(selectorMatches(selector, { app: 'web' }), false);
    assert.equal(selectorMatches(selector, { zone: '' }), true);
  });

  test('NotIn matches a missing key and a present key with an unlisted value', () => {
    const selector: LabelSelector = { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['backend'] }] };
    assert.equal(selectorMatches(selector, labels), true);
    assert.equal(selectorMatches(selector, { app: 'web' }), true, 'a missing key satisfies NotIn (Kubernetes semantics)');
    assert.equal(selectorMatches(selector, { tier: 'backend' }), false);
  });

  test('Exists and DoesNotExist look only at the key, also for empty values', () => {
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, labels), true);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, labels), false);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, { zone: '' }), true);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, labels), true);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, labels), false);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, { zone: '' }), false);
  });

  test('inherited object properties are not labels', () => {
    // GIVEN a key that exists on Object.prototype but not in the labels
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, { app: 'web' }), false);
    assert.equal(selectorMatches({ matchExpressions: [{ key: 'toString', operator: 'DoesNotExist' }] }, { app: 'web' }), true);
  });

  test('matchLabels and every expression must all hold (AND)', () => {
    // GIVEN a selector whose parts each match on their own
    const selector: LabelSelector = {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['frontend'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    };
    // THEN the whole selector matches
    assert.equal(selectorMatches(selector, labels), true);
    // AND failing any single part fails the whole selector
    assert.equal(selectorMatches(selector, { ...labels, app: 'api' }), false, 'matchLabels fails');
    assert.equal(selectorMatches(selector, { ...labels, tier: 'backend' }), false, 'In fails');
    assert.equal(selectorMatches(selector, { ...labels, legacy: 'yes' }), false, 'DoesNotExist fails');
  });
});

describe('selectorToQuery', () => {
  test('renders each operator in the API server syntax', () => {
    // GIVEN one part of each kind
    const query = selectorToQuery({
      matchLabels: { 'mirror.linkerd.io/exported': 'true' },
      matchExpressions: [
        { key: 'a', operator: 'In', values: ['y', 'x'] },
        { key: 'b', operator: 'NotIn', values: ['z'] },
        { key: 'c', operator: 'Exists' },
        { key: 'd', operator: 'DoesNotExist' },
      ],
    });
    // THEN labels come first, expressions after, values sorted
    assert.equal(query, 'mirror.linkerd.io/exported=true,a in (x,y),b notin (z),c,!d');
  });

  test('the default export selector renders as Linkerd writes it', () => {
    assert.equal(selectorToQuery({ matchLabels: { 'mirror.linkerd.io/exported': 'true' } }), 'mirror.linkerd.io/exported=true');
  });

  test('the order of the input does not change the query', () => {
    // GIVEN two selectors that differ only in the order of keys, expressions and values
    const one: LabelSelector = {
      matchLabels: { zeta: '1', alpha: '2', Mid: '3' },
      matchExpressions: [
        { key: 'tier', operator: 'NotIn', values: ['b', 'a'] },
        { key: 'tier', operator: 'In', values: ['c', 'B', 'a'] },
        { key: 'app', operator: 'Exists' },
      ],
    };
    const two: LabelSelector = {
      matchLabels: { Mid: '3', alpha: '2', zeta: '1' },
      matchExpressions: [
        { key: 'app', operator: 'Exists' },
        { key: 'tier', operator: 'In', values: ['a', 'c', 'B'] },
        { key: 'tier', operator: 'NotIn', values: ['a', 'b'] },
      ],
    };
    // WHEN both are rendered
    const q1 = selectorToQuery(one);
    const q2 = selectorToQuery(two);
    // THEN the queries are identical, in code-point order (upper case before lower case)
    assert.equal(q1, q2);
    assert.equal(q1, 'Mid=3,alpha=2,zeta=1,app,tier in (B,a,c),tier notin (a,b)');
  });

  // BUG (reported to the lead): expressions are sorted by `key + operator` only, so two expressions
  // with the same key and operator keep their input order:
  //   [{tier In [a]}, {tier In [b]}] → "tier in (a),tier in (b)"
  //   [{tier In [b]}, {tier In [a]}] → "tier in (b),tier in (a)"
  // The query is stored in the lock (TargetSnapshot.selectors) and compared by select-mirrors.ts,
  // so reordering such expressions makes an offline compile warn that the link changed.
  test('expressions with the same key and operator render in the same order whatever the input order', () => {
    // GIVEN two expressions on the same key and operator, in both orders
    const a = { key: 'tier', operator: 'In' as const, values: ['a'] };
    const b = { key: 'tier', operator: 'In' as const, values: ['b'] };
    // THEN both orders give one query
    assert.equal(selectorToQuery({ matchExpressions: [a, b] }), selectorToQuery({ matchExpressions: [b, a] }));
  });

  test('does not modify the selector it renders', () => {
    const values = ['b', 'a'];
    const exprs = [{ key: 'z', operator: 'In' as const, values }, { key: 'a', operator: 'Exists' as const }];
    selectorToQuery({ matchExpressions: exprs });
    assert.deepEqual(values, ['b', 'a']);
    assert.deepEqual(exprs.map((e) => e.key), ['z', 'a']);
  });
});
