export * from './argocd-application-set.js';
export * from './argocd-app-project.js';
export * from './argocd-cm-change.js';
export * from './delivery-files.js';
export * from './flux-kustomization.js';
export * from './observed-clusters.js';
export * from './reader-rbac-chart.js';
export * from './stock-argocd-cm.js';
