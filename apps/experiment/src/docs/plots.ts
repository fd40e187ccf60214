/** Vega-Lite specs of the experiment plots (pure) and their rendering to SVG without a browser (vega's headless View, renderer 'none'). */

import * as vega from 'vega';
import * as vegaLite from 'vega-lite';
import { SLO_S } from '../catalogue';

export interface AgePoint {
  /** Seconds from the fault. */
  s: number;
  age: number;
  layer: string;
  run: string;
}

export interface LadderPoint {
  rate: number;
  p99: number;
  layer: string;
  run: string;
}

type Spec = vegaLite.TopLevelSpec;

/** Freshness (the probe's newest-seen age per layer) over time around the fault, one line per layer and run, the SLO as a rule. */
export function freshnessSpec(title: string, points: readonly AgePoint[]): Spec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 640,
    height: 220,
    layer: [
      {
        data: { values: [...points] },
        mark: { type: 'line', strokeWidth: 1.2, interpolate: 'step-after' },
        encoding: {
          x: { field: 's', type: 'quantitative', title: 'seconds from the fault' },
          y: { field: 'age', type: 'quantitative', title: 'newest probe event age, s' },
          color: { field: 'layer', type: 'nominal' },
          strokeDash: { field: 'run', type: 'nominal' },
        },
      },
      {
        data: { values: [{ slo: SLO_S }] },
        mark: { type: 'rule', color: 'firebrick', strokeDash: [4, 3] },
        encoding: { y: { field: 'slo', type: 'quantitative' } },
      },
      {
        data: { values: [{ s: 0 }] },
        mark: { type: 'rule', color: 'gray' },
        encoding: { x: { field: 's', type: 'quantitative' } },
      },
    ],
  };
}

/** The load ladder: events/s against freshness p99 per layer. */
export function ladderSpec(title: string, points: readonly LadderPoint[]): Spec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 480,
    height: 240,
    layer: [
      {
        data: { values: [...points] },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'rate', type: 'quantitative', title: 'events/s (target)' },
          y: { field: 'p99', type: 'quantitative', title: 'freshness p99, s' },
          color: { field: 'layer', type: 'nominal' },
          strokeDash: { field: 'run', type: 'nominal' },
        },
      },
      {
        data: { values: [{ slo: SLO_S }] },
        mark: { type: 'rule', color: 'firebrick', strokeDash: [4, 3] },
        encoding: { y: { field: 'slo', type: 'quantitative' } },
      },
    ],
  };
}

export async function renderSvg(spec: Spec): Promise<string> {
  const compiled = vegaLite.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
