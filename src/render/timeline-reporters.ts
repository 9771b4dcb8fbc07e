/** The formats of `timeline`: one key's timeline or the summary of every key, or the JSON document. */
import type { TimelineResult, TimelineSummaryResult } from "../commands/timeline.js";
import type { TextOrJsonReporters } from "./reporter.js";
import type { TextContext } from "./common.js";
import { jsonReporter } from "./json.js";

export const TIMELINE_REPORTERS: TextOrJsonReporters<TimelineResult | TimelineSummaryResult, TextContext> = {
  text: async (ctx) => {
    const { renderTimelineSummaryText, renderTimelineText } = await import("./timeline-text.js");
    return { end: (r) => ("segments" in r ? renderTimelineText(r, ctx) : renderTimelineSummaryText(r, ctx)) };
  },
  json: jsonReporter,
};
