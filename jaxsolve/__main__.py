from jaxsolve.cli import main

main()
