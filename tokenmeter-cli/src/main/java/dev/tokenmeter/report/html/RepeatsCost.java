package dev.tokenmeter.report.html;

import dev.tokenmeter.core.analysis.ComparedQuantity;
import dev.tokenmeter.core.analysis.Cost;
import dev.tokenmeter.core.analysis.Repeats;
import dev.tokenmeter.report.CostReport;
import dev.tokenmeter.report.SavedSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The parts of report.html for runs with {@code --repeat} and with prices: the sentences under the
 * answer and the tables (repeats: mean ± half-width and CV per headline metric and planned stage;
 * cost: per stage under each pricing given). Every number is summary.json's ({@code repeats},
 * {@code pricing}, {@code stages[].cost}), formatted, never recomputed. Pure functions.
 */
final class RepeatsCost {
  private RepeatsCost() {}

  /**
   * How the repeats shaped the answer, or null without repeats: "Each load ran 3 times (a new seed
   * each time); every figure above is the mean over its repeats: at 16 concurrent users per-user
   * TPS is 142 ± 0.97 tokens/s (95% confidence interval of the mean; CV 0.27%)."
   */
  static String repeatsSentence(SavedSummary s) {
    Repeats r = s.repeats();
    if (r == null) {
      return null;
    }
    String lead = "Each load ran " + r.count() + " times (" + (r.varySeed() ? "a new seed each time" : "the same seed")
        + "); every figure above is the mean over its repeats";
    Headline.Point answer = Headline.answer(s);
    if (answer == null || answer.group() == null) {
      return lead + ".";
    }
    Repeats.Estimate e = answer.group().estimate(Repeats.Headline.DECODE_TPS_P50);
    if (Double.isNaN(e.halfWidth())) {
      return lead + ": at " + answer.loadPhrase() + " only " + e.n() + " repeat measured per-user TPS, so there"
          + " is no interval.";
    }
    return lead + ": at " + answer.loadPhrase() + " per-user TPS is " + Headline.num(e.mean()) + " ± "
        + Tables.num(e.halfWidth()) + " tokens/s (" + level(r) + " confidence interval of the mean; CV "
        + Tables.num(100 * e.cv()) + "%).";
  }

  private static String level(Repeats r) {
    return Headline.num(100 * r.confidence()) + "%";
  }

  /**
   * What 1M output tokens cost at the answer's load, or null without prices: "At 16 concurrent users
   * 1M output tokens cost about 4.531 USD of GPU time at the measured throughput (1 GPU at 2.5 USD
   * per GPU-hour); at the token prices given, about 0.5243 USD." With repeats, the range over them.
   */
  static String costSentence(SavedSummary s) {
    Cost.Model m = s.pricing();
    Headline.Point answer = Headline.answer(s);
    if (m == null || answer == null) {
      return null;
    }
    List<SavedSummary.Stage> stages = new ArrayList<>();
    for (int index : answer.group() == null ? List.of(answer.stage()) : answer.group().stages()) {
      stages.add(s.stage(index));
    }
    String gpu = amount(stages, Cost.StageCost::gpu, m.currency());
    String tokens = amount(stages, Cost.StageCost::tokens, m.currency());
    if (gpu == null && tokens == null) {
      return null;
    }
    String lead = "At " + answer.loadPhrase() + " 1M output tokens cost ";
    if (gpu == null) {
      return lead + tokens + " at the token prices given (" + CostReport.money(m.priceInPerMillion()) + " in, "
          + CostReport.money(m.priceOutPerMillion()) + " out per 1M tokens; input included).";
    }
    return lead + gpu + " of GPU time at the measured throughput (" + m.gpus() + (m.gpus() == 1 ? " GPU" : " GPUs")
        + " at " + CostReport.money(m.gpuCostPerHour()) + " " + m.currency() + " per GPU-hour)"
        + (tokens == null ? "." : "; at the token prices given, " + tokens + ".");
  }

  /** "about 4.531 USD", "between 4.5 and 4.6 USD" over repeats; null when no stage has the pricing. */
  private static String amount(List<SavedSummary.Stage> stages, Function<Cost.StageCost, Cost.Figures> pricing,
      String currency) {
    TreeSet<Double> values = new TreeSet<>();
    for (SavedSummary.Stage st : stages) {
      Cost.StageCost c = st.detail().cost();
      Cost.Figures f = c == null ? null : pricing.apply(c);
      if (f != null && Double.isFinite(f.perMillionOutputTokens())) {
        values.add(f.perMillionOutputTokens());
      }
    }
    if (values.isEmpty()) {
      return null;
    }
    String low = CostReport.money(values.first());
    String high = CostReport.money(values.last());
    return (low.equals(high) ? "about " + low : "between " + low + " and " + high) + " " + currency;
  }

  /** Per headline metric (rows) and planned stage (columns): "mean ± half-width (CV x%)". */
  static String repeatsTable(SavedSummary s) {
    Repeats r = s.repeats();
    if (r == null) {
      return "";
    }
    StringBuilder b = new StringBuilder("<div class=\"table-wrap\"><table id=\"table-repeats\">\n<caption>")
        .append(Html.esc("Each stage " + r.count() + " times (" + (r.varySeed() ? "a new seed each time" : "same seed")
            + "): "))
        .append("<a href=\"#").append(MetricDoc.REPEAT_MEAN.id()).append("\">mean ± half-width</a> of the ")
        .append(Html.esc(level(r))).append(" confidence interval (<a href=\"#").append(MetricDoc.REPEAT_CV.id())
        .append("\">CV</a>)</caption>\n<thead><tr><th scope=\"col\">Metric</th>");
    for (Repeats.Group g : r.groups()) {
      b.append("<th scope=\"col\">").append(Html.esc(g.label())).append(" <span class=\"unit\">(")
          .append(g.stages().size()).append(" of ").append(r.count()).append(")</span></th>");
    }
    b.append("</tr></thead>\n<tbody>\n");
    for (Repeats.Headline h : Repeats.Headline.values()) {
      b.append("<tr><th scope=\"row\">").append(header(h)).append("</th>");
      for (Repeats.Group g : r.groups()) {
        b.append("<td>").append(Html.esc(cell(h, g.estimate(h)))).append("</td>");
      }
      b.append("</tr>\n");
    }
    return b.append("</tbody></table></div>\n").toString();
  }

  /** "142 ± 0.97 (CV 0.27%)"; the error rate in percent; "–" when no repeat defined it. */
  static String cell(Repeats.Headline h, Repeats.Estimate e) {
    if (e == null || e.n() == 0) {
      return "–";
    }
    double scale = h == Repeats.Headline.ERROR_RATE ? 100 : 1;
    return Tables.num(scale * e.mean()) + " ± " + Tables.num(scale * e.halfWidth())
        + " (CV " + (Double.isFinite(e.cv()) ? Tables.num(100 * e.cv()) + "%" : "–") + ")";
  }

  private static String header(Repeats.Headline h) {
    String name = h.wireName();
    // Repeats.Headline and ComparedQuantity name the same 13 headline numbers alike.
    MetricDoc doc = MetricDoc.of(ComparedQuantity.valueOf(h.name()));
    String stat = name.matches(".*_p[0-9]+(_ms)?") ? " " + name.replaceAll(".*_(p[0-9]+)(_ms)?", "$1") : "";
    return "<a href=\"#" + doc.id() + "\">" + Html.esc(doc.label() + stat) + "</a> <span class=\"unit\">("
        + Html.esc(doc.unit()) + ")</span>";
  }

  /** Per pricing given, a table of every stage's cost. */
  static String costTables(SavedSummary s) {
    Cost.Model m = s.pricing();
    if (m == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    String cur = " " + m.currency();
    if (m.tokenPricing()) {
      b.append(costTable(s, "tokens", "Cost under token pricing: " + CostReport.money(m.priceInPerMillion()) + cur
          + " per 1M input tokens, " + CostReport.money(m.priceOutPerMillion()) + cur + " per 1M output tokens",
          Cost.StageCost::tokens, false));
    }
    if (m.gpuPricing()) {
      b.append(costTable(s, "gpu", "Cost of " + m.gpus() + (m.gpus() == 1 ? " GPU" : " GPUs") + " at "
          + CostReport.money(m.gpuCostPerHour()) + cur + " per GPU-hour, at each stage's measured throughput",
          Cost.StageCost::gpu, Double.isFinite(m.trafficRequestsPerDay())));
    }
    return b.toString();
  }

  private static String costTable(SavedSummary s, String id, String caption,
      Function<Cost.StageCost, Cost.Figures> pricing, boolean deployments) {
    Cost.Model m = s.pricing();
    boolean month = Double.isFinite(m.trafficRequestsPerDay());
    String cur = Html.esc(m.currency());
    StringBuilder b = new StringBuilder("<div class=\"table-wrap\"><table id=\"table-cost-").append(id)
        .append("\">\n<caption>").append(Html.esc(caption)).append("</caption>\n<thead><tr><th scope=\"col\">Stage</th>");
    column(b, MetricDoc.COST_PER_REQUEST, cur);
    column(b, MetricDoc.COST_PER_1M_OUTPUT, cur);
    column(b, MetricDoc.COST_PER_CONVERSATION, cur + ", " + m.turnsPerConversation()
        + (m.turnsPerConversation() == 1 ? " request" : " requests"));
    if (month) {
      column(b, MetricDoc.COST_PER_MONTH, cur + ", " + Tables.num(m.trafficRequestsPerDay()) + " requests/day");
    }
    if (deployments) {
      column(b, MetricDoc.DEPLOYMENTS, m.gpus() + (m.gpus() == 1 ? " GPU each" : " GPUs each"));
    }
    b.append("</tr></thead>\n<tbody>\n");
    for (SavedSummary.Stage st : s.stages()) {
      Cost.Figures f = st.detail().cost() == null ? null : pricing.apply(st.detail().cost());
      b.append("<tr><th scope=\"row\">").append(Html.esc(Headline.stageName(s, st))).append("</th>");
      List<String> cells = new ArrayList<>();
      cells.add(f == null ? "–" : CostReport.money(f.perRequest()));
      cells.add(f == null ? "–" : CostReport.money(f.perMillionOutputTokens()));
      cells.add(f == null ? "–" : CostReport.money(f.perConversation()));
      if (month) {
        cells.add(f == null ? "–" : CostReport.money(f.perMonth()));
      }
      if (deployments) {
        cells.add(f == null ? "–" : String.format(Locale.ROOT, "%d", f.deployments()));
      }
      cells.forEach(c -> b.append("<td>").append(Html.esc(c.equals("-") ? "–" : c)).append("</td>"));
      b.append("</tr>\n");
    }
    return b.append("</tbody></table></div>\n").toString();
  }

  private static void column(StringBuilder b, MetricDoc doc, String unit) {
    b.append("<th scope=\"col\"><a href=\"#").append(doc.id()).append("\">").append(Html.esc(doc.label()))
        .append("</a> <span class=\"unit\">(").append(unit).append(")</span></th>");
  }
}
