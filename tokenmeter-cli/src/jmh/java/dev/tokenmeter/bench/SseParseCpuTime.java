package dev.tokenmeter.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The {@link SseParseBenchmark} workloads measured in thread CPU time instead of wall time: on a
 * shared machine (2 cores, several busy neighbours) wall-clock JMH scores swing by 2x, while CPU
 * time per chunk, the quantity the client budget is written in, stays within about 10%.
 *
 * <pre>
 * java -cp target/tokenmeter-jmh.jar dev.tokenmeter.bench.SseParseCpuTime [seconds-per-round]
 * </pre>
 *
 * Prints CPU nanoseconds per chunk for each workload over several rounds; the first rounds include
 * JIT warm-up, read the last ones.
 */
public final class SseParseCpuTime {

  private SseParseCpuTime() {}

  public static void main(String[] args) {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
    Blackhole blackhole =
        new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is"
                + " dangerous.");
    SseParseBenchmark bench = new SseParseBenchmark();
    bench.setUp(blackhole);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    String[] names = {
      "framer", "framerAndParser", "parser", "framerOneRead", "lendingFramer", "lendingFramerAndParser"
    };
    Runnable[] workloads = {
      bench::framer,
      bench::framerAndParser,
      bench::parser,
      bench::framerOneRead,
      bench::lendingFramer,
      bench::lendingFramerAndParser
    };
    for (int round = 0; round < 5; round++) {
      StringBuilder line = new StringBuilder("round " + round + ":");
      for (int k = 0; k < workloads.length; k++) {
        long invocations = 0;
        long cpuStart = threads.getCurrentThreadCpuTime();
        long wallStart = System.nanoTime();
        while (System.nanoTime() - wallStart < (long) (seconds * 1e9)) {
          for (int i = 0; i < 100; i++) {
            workloads[k].run();
          }
          invocations += 100;
        }
        long cpuNanos = threads.getCurrentThreadCpuTime() - cpuStart;
        double perChunk = cpuNanos / (double) (invocations * SseParseBenchmark.CHUNKS);
        line.append(String.format("  %s %.0f ns", names[k], perChunk));
      }
      System.out.println(line);
    }
  }
}
