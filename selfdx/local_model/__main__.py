"""`python -m selfdx.local_model ...` (see `selfdx.local_model.command`)."""

import sys

from selfdx.local_model.command import main

sys.exit(main())
