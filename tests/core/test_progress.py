import io

from alignment_core.progress import ProgressBar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_is_redrawn_in_place_and_closed_with_a_newline():
    out = Terminal()
    bar = ProgressBar(out, width=10)
    bar(0, "start")
    bar(0.5, "HMM source→target iteration 1/5")
    bar(1.0, "done")
    bar.close()
    text = out.getvalue()
    assert text.count("\r") == 3 and text.endswith("\n") and text.count("\n") == 1
    assert "[#####.....]  50.0%" in text and "[##########] 100.0%" in text


def test_in_a_log_it_writes_a_line_per_stage_or_ten_percent_only():
    out = io.StringIO()
    bar = ProgressBar(out)
    for n in range(0, 1001, 10):  # "stored N pairs" is one stage whatever N is
        bar(n / 1000, f"stored {n} pairs")
    bar(1.0, "alignments written")
    lines = out.getvalue().splitlines()
    assert len(lines) == 12  # 0 %, 10 %, ..., 100 %, and the new stage
    assert lines[0].startswith("  0.0%") and lines[-1].endswith("alignments written")


def test_a_disabled_bar_writes_nothing():
    out = Terminal()
    bar = ProgressBar(out, enabled=False)
    bar(0.5, "x")
    bar.close()
    assert out.getvalue() == ""
