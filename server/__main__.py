import sys

from acptools_server.app import main

if __name__ == "__main__":
    sys.exit(main())
