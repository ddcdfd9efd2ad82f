/**
 * The clock: {@link dev.tokenmeter.core.time.Ticker}, a source of monotonic nanoseconds and the
 * only way tokenmeter code reads time. Production code uses {@link
 * dev.tokenmeter.core.time.Ticker#system()} ({@code System.nanoTime}, on Linux CLOCK_MONOTONIC,
 * shared by every process on the machine); tests inject a scripted or manually advanced ticker, so
 * no test sleeps to make time pass. Values compare only with values of the same ticker.
 *
 * <p>May use: nothing else in tokenmeter.
 */
package dev.tokenmeter.core.time;
