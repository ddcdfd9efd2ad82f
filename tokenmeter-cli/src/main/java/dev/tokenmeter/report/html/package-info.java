/**
 * The self-contained HTML pages: {@link dev.tokenmeter.report.html.HtmlReport} renders a run's
 * {@code report.html} from its {@code summary.json} alone, {@link
 * dev.tokenmeter.report.html.CompareHtml} renders {@code compare.html} from the tree of {@code
 * compare.json}, and {@link dev.tokenmeter.report.html.ProductionHtml} the production report's
 * page from {@code production.json}'s content. Each page inlines Chart.js, its styles, scripts and
 * data and loads nothing from elsewhere, so it works from {@code file://}. Read next: the
 * package-private {@code Page} (the skeleton all pages share), {@code Headline} and {@code
 * CompareHeadline} (the verdict in plain words at the top) and {@code Tables} (tables that read
 * without JavaScript).
 *
 * <p>May use: core.., report, scrape..
 */
package dev.tokenmeter.report.html;
