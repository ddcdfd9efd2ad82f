package dev.tokenmeter.cli;

import dev.tokenmeter.core.analysis.LoadSearch;
import dev.tokenmeter.core.load.StagePlan;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.run.SearchSequence;
import dev.tokenmeter.run.SloRun;
import dev.tokenmeter.run.StageSequence;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * SLO gates, the degradation curve's knee and the capacity search, shared by {@code bench}, {@code
 * demo} and {@code simulate}. {@link #resolve} validates everything before any request is sent.
 */
final class SloOptions {
  @Option(names = "--slo", paramLabel = "SPEC",
      description = "Objectives every stage must meet, e.g. \"ttft.p99<=800ms,tpot.p99<=60ms,errors<=1%%,tps.p10>=30\" (docs/METRICS.md, SLOs). Exit code 3 when a stage misses one.")
  String slo;

  @Option(names = "--junit", paramLabel = "FILE", description = "Write the SLO verdicts as JUnit XML (one test case per stage and objective). Needs --slo.")
  Path junit;

  @Option(names = "--markdown", paramLabel = "FILE", description = "Write the SLO verdicts as a Markdown table (for $GITHUB_STEP_SUMMARY). Needs --slo.")
  Path markdown;

  @Option(names = "--knee-tps", paramLabel = "TOK/S", description = "Knee of the curve: where median per-user decode TPS falls below this (default: ${DEFAULT-VALUE}; 0 = off).")
  double kneeTps = 30;

  @Option(names = "--knee-fraction", paramLabel = "F", description = "Knee also where median per-user TPS falls below F x the lowest load's (e.g. 0.5; default: off).")
  Double kneeFraction;

  @Option(names = "--find-max-concurrency", paramLabel = "MIN..MAX", description = "Search the highest concurrency meeting --slo: double from MIN until a stage fails, then bisect to the exact value (MAX alone: from 1).")
  String findMaxConcurrency;

  @Option(names = "--find-max-rate", paramLabel = "MIN..MAX", description = "Search the highest rate (requests/s) meeting --slo: double from MIN, then bisect to --search-precision.")
  String findMaxRate;

  @Option(names = "--search-precision", paramLabel = "PCT", description = "--find-max-rate stops when the failing and passing rates are this close (default: ${DEFAULT-VALUE}).")
  String searchPrecision = "5%";

  @Option(names = "--max-probes", paramLabel = "N", description = "Most stages a search runs (default: ${DEFAULT-VALUE}).")
  int maxProbes = 20;

  /** The largest concurrency {@code --find-max-concurrency} may try, 0 without one. */
  int searchMaxConcurrency() {
    return findMaxConcurrency == null ? 0 : (int) range("--find-max-concurrency", findMaxConcurrency, true)[1];
  }

  /** Whether a capacity search was asked for. */
  boolean searching() {
    return findMaxConcurrency != null || findMaxRate != null;
  }

  /**
   * Validates the options and plans the run's stages: {@code load}'s list, or a search whose
   * probes copy {@code load}'s stage settings (warm-up, window, cool-down, arrivals, seed).
   */
  SloRun resolve(LoadOptions load) {
    Slo parsed = null;
    if (slo != null) {
      try {
        parsed = Slo.parse(slo);
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
    }
    if (parsed == null && (junit != null || markdown != null)) {
      throw new UsageException("--junit and --markdown report SLO verdicts: give --slo too");
    }
    if (!(kneeTps >= 0) || Double.isInfinite(kneeTps)) {
      throw new UsageException("--knee-tps must be a number of tokens/s, 0 or more (0 = off), got " + kneeTps);
    }
    if (kneeFraction != null && !(kneeFraction > 0 && kneeFraction <= 1)) {
      throw new UsageException("--knee-fraction must be in (0, 1], e.g. 0.5 for half the lowest load's TPS; got " + kneeFraction);
    }
    double fraction = kneeFraction == null ? Double.NaN : kneeFraction;
    if (!searching()) {
      return new SloRun(parsed, StageSequence.of(load.stages()), null, kneeTps, fraction, junit, markdown);
    }
    if (parsed == null) {
      throw new UsageException("--find-max-concurrency and --find-max-rate search for the highest load meeting an SLO: give --slo too");
    }
    if (findMaxConcurrency != null && findMaxRate != null) {
      throw new UsageException("give either --find-max-concurrency or --find-max-rate, not both");
    }
    if (maxProbes < 1) {
      throw new UsageException("--max-probes must be at least 1, got " + maxProbes);
    }
    boolean closed = findMaxConcurrency != null;
    String flag = closed ? "--find-max-concurrency" : "--find-max-rate";
    if (!load.concurrency.isEmpty() || !load.rate.isEmpty()) {
      throw new UsageException(flag + " chooses the loads itself: drop --concurrency/--rate");
    }
    double[] range = range(flag, closed ? findMaxConcurrency : findMaxRate, closed);
    LoadSearch search;
    try {
      search = new LoadSearch(range[0], range[1], closed, closed ? 0.05 : precision(), maxProbes);
    } catch (IllegalArgumentException e) {
      throw new UsageException(flag + ": " + e.getMessage());
    }
    // The template stage: the load options' settings at the search's first load.
    if (closed) {
      load.concurrency = new ArrayList<>(List.of((int) range[0]));
    } else {
      load.rate = new ArrayList<>(List.of(range[0]));
    }
    StagePlan template = load.stages().get(0);
    load.concurrency = new ArrayList<>();
    load.rate = new ArrayList<>();
    return new SloRun(parsed, new SearchSequence(search, parsed, template), search, kneeTps, fraction, junit, markdown);
  }

  /** {@code "1..512"} or {@code "512"} (from 1). */
  static double[] range(String flag, String text, boolean integer) {
    String t = text.strip();
    int dots = t.indexOf("..");
    String lo = dots < 0 ? "1" : t.substring(0, dots).strip();
    String hi = dots < 0 ? t : t.substring(dots + 2).strip();
    double[] r = new double[2];
    try {
      r[0] = integer ? Integer.parseInt(lo) : Double.parseDouble(lo);
      r[1] = integer ? Integer.parseInt(hi) : Double.parseDouble(hi);
    } catch (NumberFormatException e) {
      throw new UsageException(flag + " '" + text + "': write MIN..MAX with " + (integer ? "whole numbers" : "numbers")
          + ", e.g. " + flag + (integer ? " 1..256" : " 0.5..64"));
    }
    if (!(r[0] > 0) || !(r[1] >= r[0]) || Double.isInfinite(r[1])) {
      throw new UsageException(flag + " '" + text + "': need 0 < MIN <= MAX");
    }
    return r;
  }

  private double precision() {
    String t = searchPrecision.strip();
    boolean pct = t.endsWith("%");
    try {
      double v = Double.parseDouble(pct ? t.substring(0, t.length() - 1) : t);
      double f = pct ? v / 100 : v;
      if (f > 0 && f < 1) {
        return f;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException("--search-precision '" + searchPrecision + "': give a percentage between 0 and 100, e.g. 5%");
  }
}
