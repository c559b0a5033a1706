export * from './cluster.js';
export * from './explicit-export.js';
export * from './fleet.js';
export * from './fleet-spec.js';
export * from './gitops-delivery.js';
export * from './label-selector.js';
export * from './link.js';
export * from './staleness-limit.js';
export { dnsLabelProblem } from './validate-fleet.js';
