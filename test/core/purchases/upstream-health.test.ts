/**
 * The circuit breaker and float alert of each upstream (core/purchases/upstream-health.ts):
 * consecutive proven failures or time-outs open it, an answer closes it, after the cool-down
 * one probe goes through, and a float under its alert takes the upstream out.
 */
import * as assert from 'uvu/assert';
import { kobo } from '../../../core/domain/money.js';
import { createUpstreamHealth } from '../../../core/purchases/upstream-health.js';
import { suite } from '../../helpers/suite.js';

const test = suite('upstream health');
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

test('five consecutive proven failures or time-outs open the circuit; an answer in between resets the count', () => {
  const changes: string[] = [];
  const health = createUpstreamHealth({ onCircuit: (name, state) => changes.push(`${name}:${state}`) });
  for (let i = 0; i < 4; i += 1) health.record('ck', i % 2 === 0 ? 'proven_failure' : 'timeout', at(i));
  health.record('ck', 'answered', at(5));
  for (let i = 0; i < 4; i += 1) health.record('ck', 'timeout', at(10 + i));
  assert.is(health.status('ck', null, at(20)), 'ok', 'four in a row is not enough');
  health.record('ck', 'proven_failure', at(21), 'refused');
  assert.is(health.status('ck', null, at(22)), 'circuit_open');
  assert.is(health.view('ck', at(22)).lastError, 'refused');
  assert.equal(changes, ['ck:open']);
  assert.is(health.status('other', null, at(22)), 'ok', 'each upstream has its own circuit');
});

test('after the cool-down one probe goes through; its failure re-opens, its answer closes', () => {
  const health = createUpstreamHealth();
  for (let i = 0; i < 5; i += 1) health.record('ck', 'timeout', at(i));
  assert.is(health.status('ck', null, at(29_000)), 'circuit_open');
  assert.is(health.status('ck', null, at(30_010)), 'ok', 'half-open');
  health.willCall('ck', at(30_010));
  assert.is(health.status('ck', null, at(30_020)), 'circuit_open', 'one probe at a time');
  health.record('ck', 'timeout', at(31_000));
  assert.is(health.status('ck', null, at(31_001)), 'circuit_open', 'the failed probe re-opened it');
  assert.is(health.status('ck', null, at(61_001)), 'ok');
  health.willCall('ck', at(61_001));
  health.record('ck', 'answered', at(61_500));
  assert.is(health.view('ck', at(61_600)).circuit, 'closed');
});

test('a float under its alert takes the upstream out; no alert or no reading, it stays in', () => {
  const health = createUpstreamHealth();
  assert.is(health.status('ck', kobo(50_000_00), at(0)), 'ok', 'no reading yet');
  health.setFloat('ck', kobo(20_000_00), at(1));
  assert.is(health.status('ck', kobo(50_000_00), at(2)), 'float_low');
  assert.is(health.status('ck', null, at(2)), 'ok', 'no alert set');
  health.setFloat('ck', kobo(80_000_00), at(3));
  assert.is(health.status('ck', kobo(50_000_00), at(4)), 'ok');
});

test.run();
