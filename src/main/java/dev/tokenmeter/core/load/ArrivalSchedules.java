package dev.tokenmeter.core.load;

/** Implementations of {@link ArrivalSchedule}. */
final class ArrivalSchedules {
  private ArrivalSchedules() {}

  static ArrivalSchedule create(LoadModel.Open model, long seed) {
    throw new UnsupportedOperationException("TODO: arrival schedules");
  }
}
