"""The benchmarks' native rows are tested where a native module can be built, as the native backend's own tests
decide it (`native_support`: skipped without cffi or a C compiler, failed under CI, which installs both)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interpreter" / "engine" / "native"))
