package io.breakerctl.console;

import java.io.BufferedReader;
import java.io.StringReader;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.UserInterruptException;

/**
 * The stdin a command sees inside the console: each {@link #readLine()} is a JLine read whose
 * prompt is the question the command just printed, kept out of the history. Ctrl-C or Ctrl-D answer
 * nothing (null), which a confirmation takes as "no".
 */
final class PromptReader extends BufferedReader {
  private final LineReader reader;
  private final TrailingLine question;

  PromptReader(LineReader reader, TrailingLine question) {
    super(new StringReader(""));
    this.reader = reader;
    this.question = question;
  }

  @Override
  public String readLine() {
    String prompt = question.take();
    reader.getTerminal().writer().print("\r");
    reader.getTerminal().flush();
    Object before = reader.getVariable(LineReader.DISABLE_HISTORY);
    reader.setVariable(LineReader.DISABLE_HISTORY, true);
    try {
      return reader.readLine(prompt);
    } catch (UserInterruptException | EndOfFileException e) {
      return null;
    } finally {
      reader.setVariable(LineReader.DISABLE_HISTORY, before == null ? false : before);
    }
  }
}
