/**
 * Charts in a lit-html view: uPlot draws on a canvas in an element the view renders, and its life
 * follows that element's.
 */
import { nothing } from 'lit-html';
import { AsyncDirective, directive, type ElementPart } from 'lit-html/async-directive.js';
import type uPlot from 'uplot';

type Size = { width: number; height: number };

/**
 * A directive for `<div ${chart(value)}>`: uPlot's chart of `value`, made by `draw`, in that element.
 * It is drawn once the render that made the element is done (the element is in the document then,
 * with its width), drawn again when a new value comes (a new object: state is replaced, never
 * changed), and destroyed when lit-html removes the element. With `size`, the chart follows the
 * element's width.
 */
export const uPlotChart = <V>(
  draw: (element: HTMLElement, value: V) => uPlot,
  size?: (element: HTMLElement) => Size,
) => {
  class ChartDirective extends AsyncDirective {
    drawn: V | null = null;
    plot: uPlot | null = null;
    resize: ResizeObserver | null = null;

    render(_value: V) {
      return nothing;
    }

    override update(part: ElementPart, [value]: [V]) {
      if (value !== this.drawn) {
        this.drawn = value;
        const element = part.element as HTMLElement;
        queueMicrotask(() => {
          if (this.drawn === value && this.isConnected) this.draw(element, value);
        });
      }
      return nothing;
    }

    draw(element: HTMLElement, value: V) {
      this.destroy();
      const plot = draw(element, value);
      this.plot = plot;
      if (size) {
        this.resize = new ResizeObserver(() => plot.setSize(size(element)));
        this.resize.observe(element);
      }
    }

    destroy() {
      this.resize?.disconnect();
      this.plot?.destroy();
      this.resize = null;
      this.plot = null;
    }

    protected override disconnected() {
      this.destroy();
      this.drawn = null;
    }
  }
  return directive(ChartDirective);
};
