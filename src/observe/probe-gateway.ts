/**
 * Synth's one-off version of Linkerd's gateway probe (multicluster/service-mirror/probe_worker.go):
 * `GET http://<address>:<mc-probe port><path>`; a 200 answer means alive. Only the status is read:
 * the body is never read, printed or stored, and redirects are not followed. Linkerd probes every
 * period and marks the gateway dead after three failures in a row; synth makes at most that many
 * attempts, one period apart, and stops at the first success. The only network I/O besides the
 * cluster APIs; it never runs unless the model asks for it (`gateway.probe`).
 */
import { timeoutSignal } from '../util/timeout-signal.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as k8s from '@kubernetes/client-node';
import {
  DEFAULT_GATEWAY_PROBE_PERIOD_SECONDS,
  GATEWAY_PROBE_FAILURE_THRESHOLD,
  GATEWAY_PROBE_PERIOD_ANNOTATION,
  PROBE_PORT_NAME,
} from '../contract/linkerd.js';
import { portNumberProblem } from '../util/k8s-names.js';
import type { GatewayProbeSpec } from '../model/fleet-spec.js';

/** Where and how often to probe, as read from the gateway Service. */
export interface ProbePlan {
  /** One URL per address probed. */
  readonly urls: readonly string[];
  /** Time between attempts, and the timeout of one request, in milliseconds. */
  readonly periodMs: number;
}

/** The outcome of {@link probeGateway}. */
export interface ProbeOutcome {
  readonly alive: boolean;
  /** Why the last attempt failed, per URL; empty when alive. */
  readonly failures: readonly string[];
  /** Whether some attempt got an HTTP answer (so the machine reaches the gateway, which answered wrongly). */
  readonly answered: boolean;
}

/** Longest time one probe request may take, whatever the period says. */
const MAX_REQUEST_MS = 10_000;

/**
 * The probe plan from the gateway Service's `mc-probe` port and probe-period annotation, or the
 * reason there is none. The path is the fleet's (`gateway.probe.path`, default `/ready`), never the
 * target's `mirror.linkerd.io/probe-path` annotation: the target chooses neither where nor what synth
 * requests. `ips` are the addresses the probe policy allows (probe-policy.ts); `address` (`host:port`,
 * named by the fleet file) replaces every address and the port.
 */
export function probePlan(svc: k8s.V1Service | undefined, ips: readonly string[], probe: Pick<GatewayProbeSpec, 'address' | 'path'>): ProbePlan | { problem: string } {
  const annotations = svc?.metadata?.annotations ?? {};
  const periodText = annotations[GATEWAY_PROBE_PERIOD_ANNOTATION];
  const periodMs = periodText === undefined ? DEFAULT_GATEWAY_PROBE_PERIOD_SECONDS * 1000 : parsePeriod(periodText);
  if (periodMs === undefined) return { problem: `has a "${GATEWAY_PROBE_PERIOD_ANNOTATION}" annotation ${JSON.stringify(periodText)} that is neither whole seconds nor a duration such as 3s` };
  if (probe.address !== undefined) return { urls: [`http://${probe.address}${probe.path}`], periodMs };
  const port = svc?.spec?.ports?.find((p) => p.name === PROBE_PORT_NAME);
  const number = svc?.spec?.type === 'NodePort' ? port?.nodePort : port?.port;
  if (number === undefined) return { problem: `has no port named "${PROBE_PORT_NAME}", so it cannot be probed` };
  const portProblem = portNumberProblem(number);
  if (portProblem) return { problem: `has a "${PROBE_PORT_NAME}" port ${portProblem}, so it cannot be probed` };
  if (ips.length === 0) return { problem: 'has no address to probe' };
  return { urls: ips.map((ip) => `http://${ip.includes(':') ? `[${ip}]` : ip}:${number}${probe.path}`), periodMs };
}

/** `3` (seconds) or a Go duration such as `3s`, `500ms`, `1m30s`, in milliseconds; undefined when neither. */
export function parsePeriod(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let ms = 0;
  for (const [, value, , unit] of text.matchAll(/(\d+(\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) ms += Number(value) * units[unit!]!;
  return ms;
}

/** The observation budget's bounds on one probe (src/model/observation-budget.ts). */
export interface ProbeBounds {
  /** Most URLs probed (the first ones of the plan). */
  readonly maxAddresses: number;
  /** Aborts the whole probe (attempts, waits, requests in flight) when its time is up. */
  readonly signal: AbortSignal;
  /** Why `signal` aborted, for the failure message. */
  readonly outOfTime: string;
}

/**
 * Probes until one URL answers 200, at most {@link GATEWAY_PROBE_FAILURE_THRESHOLD} attempts one period apart, within `bounds`.
 * `onRequest` is called as each request starts (status measures the answering one's latency).
 */
export async function probeGateway(plan: ProbePlan, bounds?: ProbeBounds, onRequest?: () => void): Promise<ProbeOutcome> {
  const timeoutMs = Math.min(Math.max(plan.periodMs, 1000), MAX_REQUEST_MS);
  const urls = bounds ? plan.urls.slice(0, bounds.maxAddresses) : plan.urls;
  let answered = false;
  let failures: string[] = [];
  for (let attempt = 1; attempt <= GATEWAY_PROBE_FAILURE_THRESHOLD; attempt++) {
    if (bounds?.signal.aborted) return { alive: false, failures: [bounds.outOfTime], answered };
    // The period comes from the target's annotation: capped, so a target cannot hold synth (and its run lock) for hours.
    if (attempt > 1) await sleep(Math.min(plan.periodMs, MAX_REQUEST_MS), undefined, bounds ? { signal: bounds.signal } : {}).catch(() => {});
    if (bounds?.signal.aborted) return { alive: false, failures: [bounds.outOfTime], answered };
    failures = [];
    for (const url of urls) {
      try {
        const signal = timeoutSignal(timeoutMs, bounds?.signal);
        onRequest?.();
        const response = await fetch(url, { signal, redirect: 'manual' });
        await response.body?.cancel();
        answered = true;
        if (response.status === 200) return { alive: true, failures: [], answered };
        failures.push(`${url} answered HTTP ${response.status}`);
      } catch (e) {
        if (bounds?.signal.aborted) return { alive: false, failures: [bounds.outOfTime], answered };
        failures.push(`${url}: ${describe(e, timeoutMs)}`);
      }
    }
  }
  return { alive: false, failures, answered };
}

/**
 * Why a request failed, in words of our own: a timeout, or the error code (`ECONNREFUSED`,
 * `UND_ERR_SOCKET`, `HPE_INVALID_HEADER_TOKEN`). Never an error's message: a malformed answer's
 * bytes can end up in it, and the answer is the target's text.
 */
function describe(e: unknown, timeoutMs: number): string {
  const name = (e as { name?: string })?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const code = (e as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : 'the request failed';
}
