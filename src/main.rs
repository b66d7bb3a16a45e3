fn main() -> std::process::ExitCode {
    fray::cli::main()
}
