// A time series chart drawn by uPlot (canvas): one or more series over the same timestamps, the
// y axis and the legend in the caller's format, resized with its container. uPlot sets element
// styles from JS (allowed by the CSP; only inline style attributes in markup are not).
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  readonly label: string;
  readonly values: readonly number[];
}

export interface TimeChartProps {
  /** Accessible name of the drawing. */
  readonly label: string;
  /** Bucket starts, epoch milliseconds. */
  readonly timestamps: readonly number[];
  readonly series: readonly ChartSeries[];
  readonly format: (value: number) => string;
  readonly height?: number;
  /** Counts: the y axis ticks only whole numbers (no "0, 1, 1" from rounded halves). */
  readonly integer?: boolean;
}

/** Pico's palette: readable on light and dark backgrounds. */
const COLOURS = ['#0172ad', '#d93526', '#5d9e39', '#9236a4'];
const FILL = 'rgba(1, 114, 173, 0.12)';
/** Whole-number tick steps: 1, 2, 5, 10, 20, 50, ... */
const INTEGER_STEPS = Array.from(
  { length: 30 },
  (_, i) => (i % 3 === 2 ? 5 : (i % 3) + 1) * 10 ** Math.floor(i / 3),
);

function options(props: TimeChartProps, width: number): uPlot.Options {
  const single = props.series.length === 1;
  return {
    width,
    height: props.height ?? 180,
    legend: { show: !single },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: true },
      y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      {},
      {
        // Wide enough for the longest tick label ("1,500,000", "$0.000012").
        size: (_u: uPlot, values: string[] | null) =>
          Math.max(48, ...(values ?? []).map((v) => String(v).length * 7 + 20)),
        ...(props.integer ? { incrs: INTEGER_STEPS } : {}),
        values: (_u, splits) => splits.map((v) => props.format(v)),
      },
    ],
    series: [
      {},
      ...props.series.map((s, i) => ({
        label: s.label,
        stroke: COLOURS[i % COLOURS.length] ?? '#0172ad',
        width: 2,
        ...(single ? { fill: FILL } : {}),
        points: { show: props.timestamps.length <= 60 },
        value: (_u: uPlot, v: number | null) => (v === null ? '–' : props.format(v)),
      })),
    ],
  };
}

export function TimeChart(props: TimeChartProps) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const data: uPlot.AlignedData = [
      props.timestamps.map((ms) => ms / 1000),
      ...props.series.map((s) => [...s.values]),
    ];
    const chart = new uPlot(options(props, Math.max(200, element.clientWidth)), data, element);
    const resize = new ResizeObserver(() => {
      const width = Math.max(200, element.clientWidth);
      if (width !== chart.width) chart.setSize({ width, height: chart.height });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [props.timestamps, props.series, props.format, props.height, props.label, props.integer]);
  return <div ref={container} class="time-chart" role="img" aria-label={props.label} />;
}
