import sys

from accelsim.cli import main

sys.exit(main())
