/**
 * Disagreements between the members of a federated Service, modelled on the MCS API's conflict
 * rules (ports merged by name; a port with another number or protocol, a port that only some
 * members have, a different Service type). The federated Service still uses the first member's
 * ports, as Linkerd does; these findings only say where the other members disagree.
 */
import type { ObservedPort } from '../../../snapshot/snapshot.js';
import { memberId, type FederatedMember } from './federated-member.js';

function describePort(port: ObservedPort): string {
  return `${port.port}/${port.protocol}`;
}

function portLabel(name: string): string {
  return name === '' ? 'the unnamed port' : `port "${name}"`;
}

/** Each conflict between `members[0]` (the winner) and every other member, in member and port order. */
export function federatedConflicts(members: readonly FederatedMember[]): string[] {
  const [winner, ...others] = members;
  if (!winner) return [];
  const winnerId = memberId(winner);
  const conflicts: string[] = [];
  for (const other of others) {
    const otherId = memberId(other);
    if (other.service.type !== winner.service.type) {
      conflicts.push(`type: ${winnerId} is ${winner.service.type}, ${otherId} is ${other.service.type}`);
    }
    for (const port of winner.service.ports) {
      const match = other.service.ports.find((p) => p.name === port.name);
      if (!match) {
        conflicts.push(`${portLabel(port.name)} (${describePort(port)}): in ${winnerId}, missing in ${otherId}`);
      } else if (match.port !== port.port || match.protocol !== port.protocol) {
        conflicts.push(`${portLabel(port.name)}: ${winnerId} has ${describePort(port)}, ${otherId} has ${describePort(match)}`);
      }
    }
    for (const port of other.service.ports) {
      if (!winner.service.ports.some((p) => p.name === port.name)) {
        conflicts.push(`${portLabel(port.name)} (${describePort(port)}): in ${otherId}, missing in ${winnerId}, so the federated Service does not offer it`);
      }
    }
  }
  return conflicts;
}
