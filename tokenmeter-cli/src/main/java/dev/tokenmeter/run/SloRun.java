package dev.tokenmeter.run;

import dev.tokenmeter.core.analysis.LoadSearch;
import dev.tokenmeter.core.analysis.StageResult;
import dev.tokenmeter.core.loadgen.RequestSink;
import dev.tokenmeter.core.metrics.GoodputCounter;
import dev.tokenmeter.core.slo.RunAnalysis;
import dev.tokenmeter.core.slo.Slo;
import dev.tokenmeter.report.JUnitXml;
import dev.tokenmeter.report.SloRender;
import dev.tokenmeter.run.RunFailedException;
import dev.tokenmeter.run.StageSequence;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * One run's SLO, knee and search settings, resolved from the command's {@code --slo} options, and the hooks a
 * run calls: the stages to run, a request sink that counts goodput, the goodput filled into each
 * stage result, the run's analysis for {@code summary.json}, and at the end the verdict (table,
 * {@code --junit}, {@code --markdown}, exit code). Without {@code --slo} every hook is a no-op but
 * the curve. Used from the run's thread; the sink from the event loop (see {@link GoodputCounter}).
 */
public final class SloRun {
  private final Slo slo;
  private final StageSequence stages;
  private final LoadSearch search;
  private final double kneeTps;
  private final double kneeFraction;
  private final Path junit;
  private final Path markdown;
  private final GoodputCounter goodput;

  public SloRun(Slo slo, StageSequence stages, LoadSearch search, double kneeTps, double kneeFraction, Path junit, Path markdown) {
    this.slo = slo;
    this.stages = stages;
    this.search = search;
    this.kneeTps = kneeTps;
    this.kneeFraction = kneeFraction;
    this.junit = junit;
    this.markdown = markdown;
    this.goodput = slo == null ? null : new GoodputCounter(slo);
  }

  /** No SLO, the given stages, the default knee bar. */
  public static SloRun none(StageSequence stages) {
    return new SloRun(null, stages, null, 30, Double.NaN, null, null);
  }

  /** Whether the run is judged: an {@code --slo} given, or a capacity search. */
  public boolean gated() {
    return slo != null || search != null;
  }

  /** The stages to run: the fixed list, or the capacity search. */
  public StageSequence stages() {
    return stages;
  }

  /** {@code inner}, also counting goodput when an SLO is given. */
  public RequestSink sink(RequestSink inner) {
    if (goodput == null) {
      return inner;
    }
    return (t, m) -> {
      goodput.accept(m);
      inner.accept(t, m);
    };
  }

  /** {@code r} with its goodput when an SLO is given; call after the stage ended. */
  public StageResult withGoodput(StageResult r) {
    return goodput == null ? r : r.withGoodput(goodput.count(r.plan().index(), r.plan().load()));
  }

  /** The curve, knee, SLO verdicts and search answer over {@code results}. */
  public RunAnalysis analyze(List<StageResult> results) {
    return RunAnalysis.of(results, kneeTps, kneeFraction, slo, search);
  }

  /**
   * Prints the SLO table, writes {@code --junit} and {@code --markdown}, and returns whether the
   * SLO was violated (the command's exit code 3); false when no SLO was given.
   */
  public boolean finish(RunAnalysis a, List<StageResult> results, String target, Instant startedAt, PrintStream out) {
    if (a.slo() == null) {
      return false;
    }
    out.println();
    out.print(SloRender.console(a));
    write(junit, "--junit", () -> JUnitXml.render(a, results, target, startedAt), out);
    write(markdown, "--markdown", () -> SloRender.markdown(a, target), out);
    return a.sloViolated();
  }

  private static void write(Path file, String flag, java.util.function.Supplier<String> text, PrintStream out) {
    if (file == null) {
      return;
    }
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, text.get(), StandardCharsets.UTF_8);
      out.println("SLO verdicts (" + flag.substring(2) + "): " + file);
    } catch (IOException e) {
      throw new RunFailedException("cannot write " + flag + " " + file + ": " + e.getMessage());
    }
  }
}
