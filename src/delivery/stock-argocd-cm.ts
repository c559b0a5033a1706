/**
 * The stock `argocd-cm` that delivery's change is computed from: a byte-identical copy of
 * argoproj/argo-cd `manifests/base/config/argocd-cm.yaml` @ 37ee0097cf (3.6.0-dev), kept next to this file.
 */
import { readFileSync } from 'node:fs';
import { argoCdConfigMapData } from './argocd-cm-change.js';

/** Path of the bundled stock `argocd-cm` manifest. */
export const STOCK_ARGOCD_CM_FILE = new URL('./argocd-cm.stock.yaml', import.meta.url);

/** The `data` of the bundled stock `argocd-cm`. */
export function readStockArgoCdConfigMapData(): Record<string, string> {
  return argoCdConfigMapData(readFileSync(STOCK_ARGOCD_CM_FILE, 'utf8'));
}
