/// A first-in, first-out list of jobs (`ICSParallelBuilder`'s jobs in flight, `ICSWorkerPool`'s jobs to make):
/// taken from the front without moving the rest each time, and a taken job is released at once.
struct ICSJobQueue {
    private var jobs: [ICSJob?] = []
    private var head = 0

    var isEmpty: Bool { head == jobs.count }
    var count: Int { jobs.count - head }

    mutating func append(_ job: ICSJob) {
        jobs.append(job)
    }

    mutating func popFirst() -> ICSJob? {
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        jobs[head] = nil
        head += 1
        if head >= 64 || head == jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    mutating func removeAll() {
        jobs = []
        head = 0
    }
}
