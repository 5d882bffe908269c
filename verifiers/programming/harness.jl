# The unit-test harness for Julia element functions: the counterpart of harness.py.
#
# It runs inside the sandbox through juliacall.  One element function runs in place of the background
# step of its role; only the steps before that role run, to make its inputs, which it takes by
# argument name from the pipeline's namespace, then from the script's PARAMS.  The harness writes the
# facts (status, phase, error, bound arguments, return type) to a JSON report that the Python verifier
# turns into an obligation; it decides nothing the parent does not re-derive.

module PhysvecHarness

export Step, Pipeline, run_unit_test

"""One role of a background pipeline: the trusted function and the namespace name of its output."""
struct Step
    role::String
    fn::Function
    output::String
end

"""A known-good pipeline of one model family, at a size that runs in seconds."""
struct Pipeline
    name::String
    params::Dict{String,Any}
    steps::Vector{Step}
end

const PHASE_FILE = "unit_phase.txt"

argument_names(f) = [String(name) for name in Base.method_argnames(first(methods(f)))[2:end]]

call_with_namespace(f, namespace) = f((namespace[name] for name in argument_names(f))...)

"""Arguments by name from the pipeline, then from the script's PARAMS; the names neither can bind."""
function bind_arguments(f, namespace::Dict{String,Any}, params::Dict{String,Any})
    arguments, sources, unbound = Any[], Dict{String,Any}(), String[]
    for name in argument_names(f)
        if haskey(namespace, name)
            push!(arguments, namespace[name])
            sources[name] = "background pipeline"
        elseif haskey(params, name)
            push!(arguments, params[name])
            sources[name] = "script PARAMS"
        else
            push!(unbound, name)
        end
    end
    return arguments, sources, unbound
end

escape_json(c::Char) = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c < ' ' ? "\\u" * string(UInt16(c); base=16, pad=4) : string(c)
to_json(x::AbstractString) = "\"" * join(escape_json(c) for c in x) * "\""
to_json(x::Bool) = x ? "true" : "false"
to_json(x::Integer) = string(x)
to_json(x::Real) = isfinite(x) ? string(Float64(x)) : "null"
to_json(::Nothing) = "null"
to_json(x::AbstractVector) = "[" * join((to_json(v) for v in x), ", ") * "]"
to_json(x::AbstractDict) = "{" * join((to_json(string(k)) * ": " * to_json(v) for (k, v) in x), ", ") * "}"

write_report(path::String, report::Dict{String,Any}) = write(path, to_json(report))
mark_phase(phase::String) = write(PHASE_FILE, phase)
elapsed(started::Float64) = round(time() - started; digits=3)

"""The deepest line of the unit-test program in a backtrace (the program keeps the script's lines)."""
function program_line(backtrace, program::String)
    lines = [frame.line for frame in stacktrace(backtrace) if basename(String(frame.file)) == program]
    return isempty(lines) ? nothing : first(lines)
end

function failure(phase::String, error, backtrace, started::Float64, program::String)
    trace = sprint(Base.show_backtrace, backtrace)
    return Dict{String,Any}(
        "status" => phase == "call" ? "failed" : "environment_error", "phase" => phase,
        "error" => sprint(showerror, error), "traceback" => trace[max(1, end - 6000):end],
        "line" => program_line(backtrace, program), "seconds" => elapsed(started))
end

all_finite(x::Number) = isfinite(x)
all_finite(x::AbstractArray{<:Number}) = all(isfinite, x)
all_finite(x::Union{Tuple,AbstractArray,NamedTuple}) = all(all_finite, x)
all_finite(x::AbstractDict) = all(all_finite, values(x))
all_finite(x) = true

"""Run `f` in place of the background step of `role`; write the judgement's facts to `report`."""
function run_unit_test(f, role::String, pipeline::Pipeline, params::Dict{String,Any}, report::String,
                       program::String)
    started = time()
    namespace = Dict{String,Any}(pipeline.params)
    position = something(findfirst(step -> step.role == role, pipeline.steps), length(pipeline.steps) + 1)
    result = Dict{String,Any}("background" => pipeline.name, "role_in_background" => position <= length(pipeline.steps))
    mark_phase("upstream")
    arguments, sources, unbound = bind_arguments(f, namespace, params)
    try
        for step in pipeline.steps[1:position-1]
            position > length(pipeline.steps) && isempty(unbound) && break
            namespace[step.output] = call_with_namespace(step.fn, namespace)
            arguments, sources, unbound = bind_arguments(f, namespace, params)
        end
    catch error
        write_report(report, merge(result, failure("upstream", error, catch_backtrace(), started, program)))
        return
    end
    result["bound"] = sources
    if !isempty(unbound)
        types = Dict{String,Any}(name => string(typeof(value)) for (name, value) in namespace)
        write_report(report, merge(result, Dict{String,Any}(
            "status" => "unbound", "unbound" => unbound, "namespace" => types, "seconds" => elapsed(started))))
        return
    end
    mark_phase("call")
    value = try
        f(arguments...)
    catch error
        write_report(report, merge(result, failure("call", error, catch_backtrace(), started, program)))
        return
    end
    mark_phase("checks")
    result["status"], result["return_type"] = "passed", string(typeof(value))
    if !all_finite(value)
        result["status"], result["phase"], result["error"] = "failed", "finite", "non-finite numbers in the return value"
    end
    result["seconds"] = elapsed(started)
    write_report(report, result)
end

end
