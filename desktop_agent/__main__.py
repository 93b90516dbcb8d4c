from desktop_agent.app import main

raise SystemExit(main())
