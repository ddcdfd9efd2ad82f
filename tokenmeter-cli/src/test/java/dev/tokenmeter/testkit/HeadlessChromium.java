package dev.tokenmeter.testkit;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * A page of tokenmeter's (report.html, compare.html) open in headless Chromium from file://, for
 * browser tests: its console entries, script evaluation, and the data a chart plots (the pages keep
 * every chart in {@code window.tmCharts} by canvas id). Not thread-safe; close it after use.
 *
 * <p>Needs {@code /usr/bin/chromium} and {@code /usr/bin/chromedriver} (scripts/ensure-chromium.sh
 * installs them). Without them the calling test is skipped, or fails when {@code
 * TOKENMETER_REQUIRE_BROWSER=1} (as in .ci/run). The driver path is set explicitly, so Selenium
 * Manager never goes online.
 */
public final class HeadlessChromium implements AutoCloseable {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  private final ChromeDriver driver;
  private final List<LogEntry> console;

  private HeadlessChromium(ChromeDriver driver, List<LogEntry> console) {
    this.driver = driver;
    this.console = console;
  }

  /** Skips the calling test (or fails it, see above) when Chromium is not installed. */
  public static void assumeInstalled() {
    boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    if (!present && "1".equals(System.getenv("TOKENMETER_REQUIRE_BROWSER"))) {
      fail("TOKENMETER_REQUIRE_BROWSER=1 but " + CHROMIUM + " or " + CHROMEDRIVER
          + " is missing: run scripts/ensure-chromium.sh");
    }
    assumeTrue(present, "headless Chromium not installed (" + CHROMIUM + ", " + CHROMEDRIVER
        + "): run scripts/ensure-chromium.sh to run the pages' browser tests");
  }

  /** Opens {@code page} (a local file) and collects its console entries once it has loaded. */
  public static HeadlessChromium open(Path page) {
    return openUrl(page.toUri().toString());
  }

  /** Opens {@code url} (a local file, or a page served on 127.0.0.1) and collects its console entries once it has loaded. */
  public static HeadlessChromium openUrl(String url) {
    assumeInstalled();
    // The driver named explicitly: Selenium Manager (which would look online) is never asked.
    // (Through the system property: ChromeDriverService.Builder's class file makes javac warn.)
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--window-size=1280,2000");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriver driver = new ChromeDriver(options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    driver.get(url);
    return new HeadlessChromium(driver, new ArrayList<>(driver.manage().logs().get(LogType.BROWSER).getAll()));
  }

  public ChromeDriver driver() {
    return driver;
  }

  /** The console entries logged while the page loaded. */
  public List<LogEntry> console() {
    return console;
  }

  /**
   * The entries at level SEVERE (errors) or above, those logged since the page loaded included: for
   * a live page that keeps running scripts.
   */
  public List<LogEntry> errorsSoFar() {
    console.addAll(driver.manage().logs().get(LogType.BROWSER).getAll());
    return errors();
  }

  /** The entries at level SEVERE (errors) or above. */
  public List<LogEntry> errors() {
    return console.stream().filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
  }

  /** Runs {@code script} in the page (with {@code arguments} bound to {@code args}) and returns its result. */
  public Object js(String script, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(script, args);
  }

  /** How many resources the page loaded from elsewhere (a self-contained page: 0). */
  public long resourcesLoaded() {
    return ((Number) js("return performance.getEntriesByType('resource').length")).longValue();
  }

  /** Whether a chart was made on canvas {@code id}. */
  public boolean hasChart(String id) {
    return Boolean.TRUE.equals(js("return !!window.tmCharts['" + id + "']"));
  }

  /** The label of dataset {@code i} of the chart on canvas {@code id}. */
  public String label(String id, int dataset) {
    return (String) js("return window.tmCharts['" + id + "'].data.datasets[" + dataset + "].label");
  }

  /** {@code data} of dataset {@code i} of the chart on canvas {@code id}, as numbers (y of points). */
  public List<Double> plotted(String id, int dataset) {
    return numbers("return window.tmCharts['" + id + "'].data.datasets[" + dataset
        + "].data.map(v => v === null ? null : (typeof v === 'object' ? v.y : v));");
  }

  /** The x of every point of dataset {@code i} (datasets of {x, y} points). */
  public List<Double> plottedX(String id, int dataset) {
    return numbers("return window.tmCharts['" + id + "'].data.datasets[" + dataset + "].data.map(v => v.x);");
  }

  @SuppressWarnings("unchecked")
  private List<Double> numbers(String script) {
    List<Object> raw = (List<Object>) js(script);
    List<Double> out = new ArrayList<>();
    raw.forEach(v -> out.add(v == null ? null : ((Number) v).doubleValue()));
    return out;
  }

  @Override
  public void close() {
    driver.quit();
  }
}
