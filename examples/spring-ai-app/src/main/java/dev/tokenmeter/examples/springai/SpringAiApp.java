package dev.tokenmeter.examples.springai;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A streaming chat service on Spring AI: see {@link ChatService} and {@link ChatController}. */
@SpringBootApplication
public class SpringAiApp {
  public static void main(String[] args) {
    SpringApplication.run(SpringAiApp.class, args);
  }
}
