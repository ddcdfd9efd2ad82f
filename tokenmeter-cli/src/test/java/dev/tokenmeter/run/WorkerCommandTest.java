package dev.tokenmeter.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command line {@code bench --workers} starts a local worker with. */
class WorkerCommandTest {
  private static final URI COORDINATOR = URI.create("http://127.0.0.1:40123");

  @Test
  void aWorkerGetsTheCoordinatorsJvmOptions() {
    // As ./tokenmeter starts a bench (scripts/heap-for-run.sh, scripts/aot-cache.sh).
    List<String> launcher = List.of("--enable-native-access=ALL-UNNAMED", "-Xss512k", "-Xmx1024m",
        "-Dio.netty.leakDetection.level=disabled", "-XX:+UseSerialGC", "-Xms16m", "-XX:TrimNativeHeapInterval=1000",
        "-XX:+UnlockDiagnosticVMOptions", "-XX:-DisplayVMOutput",
        "-XX:OnOutOfMemoryError='/opt/tm/scripts/out-of-memory.sh' %p -Xmx1024m 1024",
        "-XX:AOTCache=/opt/tm/target/aot/bench.aot", "-Xlog:aot=off", "-Xlog:cds=off");
    List<String> cmd = Coordinator.workerCommand("/jdk/bin/java", launcher, "/opt/tm/tokenmeter.jar", COORDINATOR, 2);
    assertThat(cmd).first().isEqualTo("/jdk/bin/java");
    assertThat(cmd.subList(1, 1 + launcher.size())).isEqualTo(launcher); // in order, each one argument
    assertThat(cmd.subList(1 + launcher.size(), cmd.size())).containsExactly("-cp", "/opt/tm/tokenmeter.jar",
        "dev.tokenmeter.cli.Main", "worker", "--coordinator", "http://127.0.0.1:40123", "--index", "2");
  }

  @Test
  void optionsOneProcessOwnsAreNotPassedOn() {
    List<String> own = List.of("-agentlib:jdwp=transport=dt_socket,server=y,address=5005",
        "-XX:AOTCacheOutput=/tmp/bench.aot.tmp", "-Xlog:gc*:file=/tmp/gc.log", "-XX:StartFlightRecording=filename=a.jfr",
        "-XX:HeapDumpPath=/tmp/h.hprof");
    List<String> cmd = Coordinator.workerCommand("java", List.of("-Xmx256m", own.get(0), own.get(1), own.get(2),
        "-Xlog:gc:stderr", own.get(3), own.get(4), "-XX:+UseSerialGC"), "cp", COORDINATOR, 0);
    assertThat(cmd).doesNotContainAnyElementsOf(own);
    assertThat(cmd).containsSubsequence("java", "-Xmx256m", "-Xlog:gc:stderr", "-XX:+UseSerialGC", "-cp", "cp");
  }
}
