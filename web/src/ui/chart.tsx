/**
 * A chart drawn with uPlot (small and fast, canvas only), sized to its box and redrawn when the box changes size.
 * A canvas says nothing to a screen reader: the box is an image with a label, and every page that draws one shows
 * the same figures in a table beside it.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './chart.css';

/** Line colours that keep 4.5:1 against white. */
const COLORS = ['#1a56b0', '#b0431a', '#14622b', '#6b2fa3', '#8a6d00'];

export function Chart(props: { label: string; series: { label: string; values: (number | null)[] }[]; xs: number[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element || props.xs.length === 0) return;
    const width = () => Math.max(240, element.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        series: [
          {},
          ...props.series.map((s, i) => ({
            label: s.label,
            stroke: COLORS[i % COLORS.length],
            width: 2,
            spanGaps: true,
          })),
        ],
        axes: [{}, { size: 60 }],
        legend: { show: props.series.length > 1 },
      },
      [props.xs, ...props.series.map((s) => s.values)] as uPlot.AlignedData,
      element,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [props.xs, props.series]);
  return <div class="chart" ref={box} role="img" aria-label={props.label} />;
}
