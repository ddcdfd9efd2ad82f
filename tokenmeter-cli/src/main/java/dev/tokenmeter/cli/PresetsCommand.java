package dev.tokenmeter.cli;

import dev.tokenmeter.simulator.PresetsListing;
import dev.tokenmeter.simulator.engine.EngineConfig;
import dev.tokenmeter.simulator.engine.Presets;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tokenmeter sim presets}: every model and accelerator preset with its figures. */
@Command(
    name = "presets",
    mixinStandardHelpOptions = true,
    description = {
      "Lists the simulator's model and accelerator presets with their figures (sources in docs/SIMULATOR.md).",
      "With --json, one object of 'models' or 'gpus', saved to a file and edited, is a --model-file or --gpu-file."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter sim presets",
      "  tokenmeter sim presets --json"
    })
final class PresetsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--json", description = "Print JSON instead of tables.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    EngineConfig defaults = EngineConfig.of(Presets.model(EngineOptions.DEFAULT_MODEL), Presets.gpu(EngineOptions.DEFAULT_GPU));
    out.print(json ? PresetsListing.json(defaults) : PresetsListing.tables(defaults));
    out.flush();
    return Main.EXIT_OK;
  }
}
