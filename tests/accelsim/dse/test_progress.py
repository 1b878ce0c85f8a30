import io

from accelsim.dse.progress import Progress, format_duration


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_lines_report_done_failed_rate_and_eta_without_a_tty():
    clock, out = Clock(), io.StringIO()
    bar = Progress(10, skipped=3, stream=out, clock=clock, log_interval_s=5.0)
    clock.t += 2.0
    bar.advance(ok=True)  # first line is always drawn
    clock.t += 2.0
    bar.advance(ok=False)  # within 5 s of the last line: not drawn
    clock.t += 4.0
    bar.advance(ok=True)  # 6 s later: drawn
    for _ in range(7):
        clock.t += 1.0
        bar.advance(ok=True)  # 8/10 is 5 s after 3/10; 10/10 is always drawn
    bar.close()
    lines = out.getvalue().splitlines()
    assert lines == [
        "[##......................] 1/10 points, 0 failed, 0.50 pts/s, ETA 00:18 (3 already stored)",
        "[#######.................] 3/10 points, 1 failed, 0.38 pts/s, ETA 00:19 (3 already stored)",
        "[###################.....] 8/10 points, 1 failed, 0.62 pts/s, ETA 00:03 (3 already stored)",
        "[########################] 10/10 points, 1 failed, 0.67 pts/s, ETA 00:00 (3 already stored)",
    ]


def test_tty_is_a_tqdm_bar_redrawn_in_place():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    clock, out = Clock(), Tty()
    bar = Progress(2, skipped=1, stream=out, clock=clock)
    clock.t += 1
    bar.advance(False)
    clock.t += 1
    bar.advance(True)
    bar.close()
    text = out.getvalue()
    assert text.count("\r") >= 2 and text.endswith("\n") and "\n" not in text[:-1]
    final = text.rstrip("\n").rsplit("\r", 1)[-1]
    assert "points: 100%" in final and "2/2" in final
    assert "1 failed, 1 already stored" in final


def test_format_duration():
    assert format_duration(59.4) == "00:59"
    assert format_duration(3725) == "1:02:05"
    assert format_duration(float("inf")) == "--:--"
