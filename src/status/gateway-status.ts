/**
 * A target's gateway, probed from where status runs, as synth probes it (src/observe/probe-gateway.ts,
 * Linkerd's probe: `GET <mc-probe port><path>`, 200 is alive): only when the fleet asks for a probe
 * (`gateway.probe`), only at the addresses the lock accepted for the gateway and the probe policy
 * allows (src/observe/probe-policy.ts), or at the fleet-named `gateway.probe.address`; within the
 * cluster's observation budget. The latency is that of the answering request, from this vantage.
 */
import type * as k8s from '@kubernetes/client-node';
import type { GatewaySpec } from '../model/fleet-spec.js';
import type { ClusterClient } from '../observe/cluster-client.js';
import { probeGateway, probePlan } from '../observe/probe-gateway.js';
import { probeAddresses } from '../observe/probe-policy.js';
import type { ObservedGateway } from '../snapshot/snapshot.js';
import { timeoutSignal } from '../util/timeout-signal.js';

/** What the probe found now. */
export interface GatewayProbeNow {
  readonly alive: boolean;
  /** Milliseconds of the last request of the probe (the answering one when alive). */
  readonly latencyMs: number;
  /** Why it is not alive (per URL; no answer text), empty when alive. */
  readonly failures: readonly string[];
}

/** The probe's result, or why there is none (no probe asked for, nothing the policy allows, ...); null when the fleet asks for no probe. */
export async function probeGatewayNow(spec: GatewaySpec, accepted: ObservedGateway | undefined, svc: k8s.V1Service | undefined, client: ClusterClient): Promise<GatewayProbeNow | { readonly notProbed: string } | null> {
  const probe = spec.probe;
  if (probe === undefined) return null;
  const ips = probe.address !== undefined ? [] : probeAddresses(accepted?.addresses ?? [], { allowedCidrs: probe.allowedCidrs, namedAddresses: spec.addresses }).allowed;
  if (probe.address === undefined && ips.length === 0) return { notProbed: 'the lock holds no gateway address the probe policy allows' };
  const plan = probePlan(svc, ips, probe);
  if ('problem' in plan) return { notProbed: `its gateway Service ${plan.problem}` };
  const { maxProbeAddresses, maxProbeSeconds } = client.budget;
  let started = performance.now();
  const outcome = await probeGateway(plan, {
    maxAddresses: maxProbeAddresses,
    signal: timeoutSignal(maxProbeSeconds * 1000, client.deadline),
    outOfTime: `the probe ran out of time (observationBudget.maxProbeSeconds ${maxProbeSeconds} s)`,
  }, () => { started = performance.now(); });
  return { alive: outcome.alive, latencyMs: Math.round(performance.now() - started), failures: outcome.failures };
}
